import type {
  Declaration,
  EnumDecl,
  EnumVariantDecl,
  FieldDecl,
  ModuleNode,
  ParamDecl,
  RecordDecl,
  RuleDecl,
} from '../ast/nodes.js';
import { suggestName } from '../diagnostics/index.js';
import type { Token } from '../lexer/token.js';
import type { Concept } from '../locales/concepts.js';
import { ABORT, LIMIT_REACHED } from './parser-base.js';
import { spanFrom, spanOf } from './span.js';
import { StatementParser } from './statement-parser.js';

const STATEMENT_CONCEPTS: readonly Concept[] = ['let', 'return', 'if', 'elseIf', 'else', 'match', 'when', 'forEach', 'fail'];

/** A module: its header, then records, enums and rules (LANGUAGE.md §3). */
export class ModuleParser extends StatementParser {
  private readonly declarations: Declaration[] = [];
  /** Set after PL1010: the first `Module` line found later is the (misplaced) header, not a second one. */
  private lateHeaderAllowed = false;
  private moduleName: string[] = [];

  /** Null only when the source holds neither a module header nor any declaration. */
  parseModule(): ModuleNode | null {
    let leading: string[] = [];
    let name: string[] = [];
    let header: Token | null = null;
    try {
      if (this.at('indent')) {
        this.next();
        this.report('PL1016', 'unexpected indentation', this.peek(), 'declarations start at the beginning of a line');
      }
      const first = this.peek();
      leading = this.leadingComments(first.start);
      if (this.isKw(first, 'module')) {
        header = first;
        name = this.parseHeader(leading);
      } else {
        const shown = `${this.spell('module')} name${this.syntax.punctuation.terminator}`;
        this.lateHeaderAllowed = true;
        this.report(
          'PL1010',
          `the module must start with \`${shown}\``,
          first,
          `write \`${this.spell('module')} a.b${this.syntax.punctuation.terminator}\` on the first line`,
        );
      }
      this.parseDeclarations();
      if (header === null) name = this.moduleName;
    } catch (error) {
      if (error !== LIMIT_REACHED) throw error;
    }
    if (header === null && this.declarations.length === 0) return null;
    const start = header ?? this.declarations[0]!.span;
    return {
      kind: 'Module',
      id: 0,
      span: spanFrom(start, this.lastToken.end >= start.end ? this.lastToken : start),
      leadingComments: leading,
      name,
      declarations: this.declarations,
      trailingComments: this.remainingComments(),
    };
  }

  private parseHeader(leading: string[]): string[] {
    try {
      this.next();
      const segments = [this.expectName('a module name').text];
      while (this.at('dot')) {
        this.next();
        segments.push(this.expectName('a module name segment').text);
      }
      const end = this.expectTerminator('declaration');
      this.claimLineComment(end.line, leading);
      return segments;
    } catch (error) {
      if (error !== ABORT) throw error;
      this.recoverLine(false);
      return [];
    }
  }

  private parseDeclarations(): void {
    for (;;) {
      const token = this.peek();
      if (token.kind === 'eof') return;
      if (token.kind === 'newline' || token.kind === 'dedent') {
        this.next();
        continue;
      }
      if (token.kind === 'indent') {
        this.report('PL1016', 'unexpected indentation', this.peek(1), 'declarations start at the beginning of a line');
        this.skipIndentedBlock();
        continue;
      }
      const declaration = this.declarationOrNull(token);
      if (declaration) this.declarations.push(declaration);
    }
  }

  private declarationOrNull(token: Token): Declaration | null {
    try {
      if (this.isKw(token, 'define')) return this.parseDefine(token);
      if (this.isKw(token, 'rule')) return this.parseRule(token);
      if (this.isKw(token, 'module')) {
        // A header that comes late was already reported as PL1010; it still names the module.
        if (this.lateHeaderAllowed) {
          this.lateHeaderAllowed = false;
          this.moduleName = this.parseHeader([]);
          return null;
        }
        this.fail('PL1011', 'more than one module header', token, 'a source file is exactly one module');
      }
      const expected = `\`${this.spell('define')}\` or \`${this.spell('rule')}\``;
      let help: string | undefined;
      if (token.concepts?.some((concept) => STATEMENT_CONCEPTS.includes(concept))) {
        help = 'statements belong inside a rule, indented by 2 spaces';
      } else if (token.kind === 'ident') {
        const guess = suggestName(token.text, [this.spell('define'), this.spell('rule'), this.spell('module')]);
        if (guess !== null) help = `did you mean \`${guess}\`?`;
      }
      return this.fail('PL1006', `expected ${expected}, found ${this.describe(token)}`, token, help);
    } catch (error) {
      if (error !== ABORT) throw error;
      this.exprDepth = 0;
      this.recoverLine(this.isKw(token, 'rule'));
      return null;
    }
  }

  private parseDefine(token: Token): RecordDecl | EnumDecl {
    const leading = this.leadingComments(token.start);
    this.next();
    const name = this.expectName('a type name');
    if (this.atKw('enumOneOf')) {
      this.next();
      const variants: EnumVariantDecl[] = [];
      do {
        const variant = this.expectName('a variant name');
        variants.push({ kind: 'EnumVariant', id: 0, span: spanOf(variant), name: variant.text });
      } while (this.acceptComma());
      const end = this.expectTerminator('declaration');
      this.claimLineComment(end.line, leading);
      return { kind: 'EnumDecl', id: 0, span: spanFrom(token, end), leadingComments: leading, name: name.text, variants };
    }
    if (!this.atKw('has')) this.unexpected(`\`${this.spell('has')}\` or \`${this.spell('enumOneOf')}\``);
    this.next();
    const fields: FieldDecl[] = [];
    do {
      const field = this.expectName('a field name');
      this.expectKw('as');
      const type = this.parseType();
      fields.push({ kind: 'FieldDecl', id: 0, span: spanFrom(field, type.span), name: field.text, type });
    } while (this.acceptComma());
    const end = this.expectTerminator('declaration');
    this.claimLineComment(end.line, leading);
    return { kind: 'RecordDecl', id: 0, span: spanFrom(token, end), leadingComments: leading, name: name.text, fields };
  }

  private acceptComma(): boolean {
    if (!this.at('comma')) return false;
    this.next();
    return true;
  }

  private parseRule(token: Token): RuleDecl {
    const leading = this.leadingComments(token.start);
    this.next();
    const name = this.expectName('a rule name');
    const params: ParamDecl[] = [];
    if (this.atKw('given')) {
      this.next();
      for (;;) {
        const param = this.expectName('a parameter name');
        this.expectKw('as');
        const type = this.parseType();
        params.push({ kind: 'Param', id: 0, span: spanFrom(param, type.span), name: param.text, type });
        if (!this.at('comma')) break;
        this.next();
        // The comma before `produce` is optional.
        if (this.atKw('produce')) break;
      }
    }
    this.expectKw('produce');
    const returnType = this.parseType();
    const colon = this.expectColon();
    this.claimLineComment(colon.line, leading);
    const body = this.parseBlock(token);
    return {
      kind: 'RuleDecl',
      id: 0,
      span: spanFrom(token, this.lastToken),
      leadingComments: leading,
      name: name.text,
      params,
      returnType,
      body,
    };
  }
}
