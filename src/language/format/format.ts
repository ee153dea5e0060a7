import type { CallExpr, Declaration, ModuleNode, ParamDecl, Statement, StepDecl, TypeRef } from '../ast/nodes.js';
import type { Locale } from '../api-types.js';
import type { Concept } from '../locales/concepts.js';
import { LOCALE_SYNTAXES } from '../locales/locale-syntaxes.js';
import type { LocaleSyntax } from '../locales/locale-syntax.js';
import { ExpressionFormatter } from './format-expression.js';

const PRIMITIVE_CONCEPT: Record<string, Concept> = { Int: 'int', Float: 'float', Text: 'text', Bool: 'bool' };
const INDENT = '  ';

class ModuleFormatter {
  private readonly lines: string[] = [];
  private readonly expr: ExpressionFormatter;
  private readonly syntax: LocaleSyntax;

  constructor(locale: Locale) {
    this.syntax = LOCALE_SYNTAXES[locale];
    this.expr = new ExpressionFormatter(this.syntax, locale);
  }

  private kw(concept: Concept): string {
    return this.expr.kw(concept);
  }

  private get term(): string {
    return this.syntax.punctuation.terminator;
  }

  private get colon(): string {
    return this.syntax.punctuation.colon;
  }

  private get comma(): string {
    return this.syntax.punctuation.comma;
  }

  private comments(comments: readonly string[], indent: string): void {
    for (const text of comments) this.lines.push(text === '' ? `${indent}#` : `${indent}# ${text}`);
  }

  private type(type: TypeRef): string {
    switch (type.kind) {
      case 'PrimitiveType':
        return this.kw(PRIMITIVE_CONCEPT[type.name]!);
      case 'NamedType':
        return this.expr.name(type.name);
      case 'ListType':
        return `${this.kw('listOf')} ${this.type(type.element)}`;
    }
  }

  module(module: ModuleNode): string {
    this.comments(module.leadingComments, '');
    this.lines.push(`${this.kw('module')} ${module.name.map((segment) => this.expr.name(segment)).join('.')}${this.term}`);
    let previous: Declaration | null = null;
    for (const declaration of module.declarations) {
      // Records and enums stay together; every rule and workflow stands apart (the layout of docs/language.md §1).
      if (previous === null || !isTypeDeclaration(declaration) || !isTypeDeclaration(previous)) this.lines.push('');
      this.declaration(declaration);
      previous = declaration;
    }
    if (module.trailingComments.length > 0) {
      this.lines.push('');
      this.comments(module.trailingComments, '');
    }
    return `${this.lines.join('\n')}\n`;
  }

  private declaration(declaration: Declaration): void {
    this.comments(declaration.leadingComments, '');
    const name = this.expr.name(declaration.name);
    switch (declaration.kind) {
      case 'RecordDecl': {
        const fields = declaration.fields.map((field) => `${this.expr.name(field.name)} ${this.kw('as')} ${this.type(field.type)}`);
        this.lines.push(`${this.kw('define')} ${name} ${this.kw('has')} ${fields.join(this.comma)}${this.term}`);
        return;
      }
      case 'EnumDecl': {
        const variants = declaration.variants.map((variant) => this.expr.name(variant.name));
        this.lines.push(
          `${this.kw('define')} ${name} ${this.kw('enumOneOf')} ${variants.join(this.syntax.punctuation.variantSeparator)}${this.term}`,
        );
        return;
      }
      case 'RuleDecl': {
        const params = this.params(declaration.params);
        const given = params.length > 0 ? `${this.kw('given')} ${params.join(this.comma)}${this.comma}` : '';
        this.lines.push(`${this.kw('rule')} ${name} ${given}${this.kw('produce')} ${this.type(declaration.returnType)}${this.colon}`);
        this.block(declaration.body, 1);
        return;
      }
      case 'WorkflowDecl': {
        const params = this.params(declaration.params);
        const given = params.length > 0 ? ` ${this.kw('given')} ${params.join(this.comma)}` : '';
        this.lines.push(`${this.kw('workflow')} ${name}${given}${this.colon}`);
        for (const step of declaration.steps) this.step(step);
        return;
      }
    }
  }

  private params(params: readonly ParamDecl[]): string[] {
    return params.map((param) => `${this.expr.name(param.name)} ${this.kw('as')} ${this.type(param.type)}`);
  }

  private step(step: StepDecl): void {
    this.comments(step.leadingComments, INDENT);
    const call = (expr: CallExpr): string => this.expr.format(expr);
    const action = step.action;
    let body: string;
    if (action.kind === 'RuleStep') {
      body = call(action.call);
      if (action.compensate !== null) body += `${this.comma}${this.kw('compensateWith')} ${call(action.compensate)}`;
    } else {
      body = `${this.kw('await')} ${this.expr.format(action.signal)}`;
      if (action.within !== null) {
        const words = this.syntax.durations;
        body += ` ${words.within[0]} ${action.within.amount} ${words[action.within.unit][0]}`;
      }
    }
    // The comma carries a locale's spacing after punctuation (`, ` but `，`); the colon follows it.
    const gap = this.comma.endsWith(' ') ? ' ' : '';
    this.lines.push(`${INDENT}${this.kw('step')} ${this.expr.name(step.name)}${this.colon}${gap}${body}${this.term}`);
  }

  private block(statements: readonly Statement[], depth: number): void {
    for (const statement of statements) this.statement(statement, depth);
  }

  private statement(statement: Statement, depth: number): void {
    const indent = INDENT.repeat(depth);
    this.comments(statement.leadingComments, indent);
    const e = (expr: Parameters<ExpressionFormatter['format']>[0]): string => this.expr.format(expr);
    switch (statement.kind) {
      case 'Let':
        this.lines.push(`${indent}${this.kw('let')} ${this.expr.name(statement.name)} ${this.kw('be')} ${e(statement.value)}${this.term}`);
        return;
      case 'Return':
        this.lines.push(`${indent}${this.kw('return')} ${e(statement.value)}${this.term}`);
        return;
      case 'Fail':
        this.lines.push(`${indent}${this.kw('fail')} ${e(statement.message)}${this.term}`);
        return;
      case 'If':
        statement.branches.forEach((branch, i) => {
          this.lines.push(`${indent}${this.kw(i === 0 ? 'if' : 'elseIf')} ${e(branch.condition)}${this.colon}`);
          this.block(branch.body, depth + 1);
        });
        if (statement.otherwise !== null) {
          this.lines.push(`${indent}${this.kw('else')}${this.colon}`);
          this.block(statement.otherwise, depth + 1);
        }
        return;
      case 'Match': {
        this.lines.push(`${indent}${this.kw('match')} ${e(statement.subject)}${this.colon}`);
        const caseIndent = INDENT.repeat(depth + 1);
        for (const matchCase of statement.cases) {
          const patterns = matchCase.patterns.map((pattern) => this.expr.pattern(pattern)).join(this.comma);
          this.lines.push(`${caseIndent}${this.kw('when')} ${patterns}${this.colon}`);
          this.block(matchCase.body, depth + 2);
        }
        if (statement.otherwise !== null) {
          this.lines.push(`${caseIndent}${this.kw('else')}${this.colon}`);
          this.block(statement.otherwise, depth + 2);
        }
        return;
      }
      case 'ForEach': {
        const end = this.syntax.keywords.inEnd.length > 0 ? ` ${this.kw('inEnd')}` : '';
        this.lines.push(
          `${indent}${this.kw('forEach')} ${this.expr.name(statement.variable)} ${this.kw('in')} ${e(statement.iterable)}${end}${this.colon}`,
        );
        this.block(statement.body, depth + 1);
        return;
      }
    }
  }
}

function isTypeDeclaration(declaration: Declaration): boolean {
  return declaration.kind === 'RecordDecl' || declaration.kind === 'EnumDecl';
}

/**
 * Prints a module in `locale` with the canonical layout: 2-space indentation, one statement per
 * line, operators as words, the fewest parentheses, comments on their own lines. Parsing the
 * result in `locale` gives back the same tree (ids and spans aside).
 */
export function format(module: ModuleNode, locale: Locale): string {
  return new ModuleFormatter(locale).module(module);
}
