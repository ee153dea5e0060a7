/**
 * First pass over a module: the names of its records, enums, rules and variants, with every type
 * written in a declaration resolved. Declaration order does not matter, so this runs before any
 * rule body is looked at.
 */
import type { Declaration, EnumDecl, ModuleNode, ParamDecl, RecordDecl, RuleDecl, TypeRef, WorkflowDecl } from '../ast/nodes.js';
import type { Reporter } from './reporter.js';
import { DuplicateDeclaration, DuplicateMember, DuplicateVariant, RecordContainsItself, UnknownType } from '../diagnostics/index.js';
import { BOOL, ERROR, FLOAT, INT, listOf, TEXT, type Type } from './types.js';

export interface DeclaredRecord {
  readonly decl: RecordDecl;
  readonly fields: { readonly name: string; readonly type: Type }[];
  readonly fieldIndex: Map<string, number>;
}

export interface DeclaredEnum {
  readonly decl: EnumDecl;
  readonly variants: string[];
  readonly variantIndex: Map<string, number>;
}

export interface DeclaredRule {
  readonly decl: RuleDecl;
  readonly params: { readonly name: string; readonly type: Type }[];
  readonly returnType: Type;
}

export interface DeclaredWorkflow {
  readonly decl: WorkflowDecl;
  readonly params: { readonly name: string; readonly type: Type }[];
}

export interface Declarations {
  readonly records: Map<string, DeclaredRecord>;
  readonly enums: Map<string, DeclaredEnum>;
  readonly rules: Map<string, DeclaredRule>;
  readonly workflows: Map<string, DeclaredWorkflow>;
  /** Variant name → name of the enum that declares it. */
  readonly variantOwner: Map<string, string>;
}

export function collectDeclarations(module: ModuleNode, reporter: Reporter): Declarations {
  const records = new Map<string, DeclaredRecord>();
  const enums = new Map<string, DeclaredEnum>();
  const rules = new Map<string, DeclaredRule>();
  const workflows = new Map<string, DeclaredWorkflow>();
  const variantOwner = new Map<string, string>();
  const firstByName = new Map<string, Declaration>();

  // Names first, so that types may refer to declarations further down.
  const accepted: Declaration[] = [];
  for (const decl of module.declarations) {
    const earlier = firstByName.get(decl.name);
    if (earlier) {
      reporter.report(DuplicateDeclaration(decl.name, describeDeclaration(earlier), earlier.span.line), decl.span);
      continue;
    }
    firstByName.set(decl.name, decl);
    accepted.push(decl);
    if (decl.kind === 'EnumDecl') {
      const variants: string[] = [];
      const variantIndex = new Map<string, number>();
      for (const variant of decl.variants) {
        const owner = variantOwner.get(variant.name);
        if (owner !== undefined) {
          reporter.report(DuplicateVariant(variant.name, owner, decl.name), variant.span);
          continue;
        }
        variantOwner.set(variant.name, decl.name);
        variantIndex.set(variant.name, variants.length);
        variants.push(variant.name);
      }
      enums.set(decl.name, { decl, variants, variantIndex });
    }
  }

  const resolve = (ref: TypeRef): Type => resolveTypeRef(ref, records, enums, firstByName, reporter);
  for (const decl of accepted) {
    if (decl.kind === 'RecordDecl') {
      records.set(decl.name, { decl, fields: [], fieldIndex: new Map() });
    }
  }
  for (const decl of accepted) {
    if (decl.kind === 'RecordDecl') {
      const record = records.get(decl.name)!;
      for (const field of decl.fields) {
        const type = resolve(field.type);
        if (record.fieldIndex.has(field.name)) {
          reporter.report(DuplicateMember.field(field.name, decl.name), field.span);
          continue;
        }
        record.fieldIndex.set(field.name, record.fields.length);
        record.fields.push({ name: field.name, type });
      }
    } else if (decl.kind === 'RuleDecl') {
      const params = resolveParams(decl.params, `rule \`${decl.name}\``, resolve, reporter);
      rules.set(decl.name, { decl, params, returnType: resolve(decl.returnType) });
    } else if (decl.kind === 'WorkflowDecl') {
      workflows.set(decl.name, { decl, params: resolveParams(decl.params, `workflow \`${decl.name}\``, resolve, reporter) });
    }
  }

  reportSelfContainingRecords(records, reporter);
  return { records, enums, rules, workflows, variantOwner };
}

/** Parameters with their types; a repeated name is reported and dropped. */
function resolveParams(
  decls: readonly ParamDecl[],
  owner: string,
  resolve: (ref: TypeRef) => Type,
  reporter: Reporter,
): { name: string; type: Type }[] {
  const params: { name: string; type: Type }[] = [];
  const seen = new Set<string>();
  for (const param of decls) {
    const type = resolve(param.type);
    if (seen.has(param.name)) {
      reporter.report(DuplicateMember.parameter(param.name, owner), param.span);
      continue;
    }
    seen.add(param.name);
    params.push({ name: param.name, type });
  }
  return params;
}

function describeDeclaration(decl: Declaration): string {
  switch (decl.kind) {
    case 'RecordDecl':
      return 'a record';
    case 'EnumDecl':
      return 'an enum';
    case 'RuleDecl':
      return 'a rule';
    case 'WorkflowDecl':
      return 'a workflow';
  }
}

function resolveTypeRef(
  ref: TypeRef,
  records: Map<string, DeclaredRecord>,
  enums: Map<string, DeclaredEnum>,
  declared: Map<string, Declaration>,
  reporter: Reporter,
): Type {
  switch (ref.kind) {
    case 'PrimitiveType':
      switch (ref.name) {
        case 'Int':
          return INT;
        case 'Float':
          return FLOAT;
        case 'Text':
          return TEXT;
        case 'Bool':
          return BOOL;
      }
      return ERROR;
    case 'ListType':
      return listOf(resolveTypeRef(ref.element, records, enums, declared, reporter));
    case 'NamedType': {
      if (records.has(ref.name)) return { kind: 'Record', name: ref.name };
      if (enums.has(ref.name)) return { kind: 'Enum', name: ref.name };
      const kind = declared.get(ref.name)?.kind;
      if (kind === 'RuleDecl' || kind === 'WorkflowDecl') {
        reporter.report(UnknownType.notAType(ref.name, kind === 'RuleDecl' ? 'rule' : 'workflow'), ref.span);
        return ERROR;
      }
      const typeNames = [...records.keys(), ...enums.keys(), 'Int', 'Float', 'Text', 'Bool'];
      reporter.report(UnknownType.unknown(ref.name, typeNames), ref.span);
      return ERROR;
    }
  }
}

/** A record that contains itself other than through a list has no finite value. */
function reportSelfContainingRecords(records: Map<string, DeclaredRecord>, reporter: Reporter): void {
  const state = new Map<string, 'active' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'active');
    path.push(name);
    const record = records.get(name)!;
    for (const field of record.fields) {
      if (field.type.kind !== 'Record') continue;
      const target = field.type.name;
      const seen = state.get(target);
      if (seen === 'active') {
        const cycle = [...path.slice(path.indexOf(target)), target].map((n) => `\`${n}\``).join(' → ');
        const fieldDecl = record.decl.fields.find((f) => f.name === field.name)!;
        reporter.report(RecordContainsItself(name, cycle), fieldDecl.span);
      } else if (seen === undefined) {
        visit(target);
      }
    }
    path.pop();
    state.set(name, 'done');
  };
  for (const name of records.keys()) {
    if (!state.has(name)) visit(name);
  }
}
