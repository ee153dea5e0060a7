import type {
  AwaitStepAction,
  CallExpr,
  Declaration,
  DurationNode,
  DurationUnit,
  EnumDecl,
  EnumVariantDecl,
  Expr,
  FieldDecl,
  ModuleNode,
  ParamDecl,
  RecordDecl,
  RuleDecl,
  RuleStepAction,
  StepDecl,
  WorkflowDecl,
} from '../ast/nodes.js';
import { MissingBlock, MissingModuleHeader, SecondModuleHeader, StepWithoutAction, suggestName, UnexpectedIndentation, UnexpectedToken } from '../diagnostics/index.js';
import type { Token } from '../lexer/token.js';
import type { Concept } from '../locales/concepts.js';
import { keywordKey } from '../locales/keyword-key.js';
import type { LocaleSyntax } from '../locales/locale-syntax.js';
import { ABORT, LIMIT_REACHED, MAX_NESTING } from './parser-base.js';
import { spanFrom, spanOf } from './span.js';
import { StatementParser } from './statement-parser.js';

type LocaleDurations = LocaleSyntax['durations'];

const STATEMENT_CONCEPTS: readonly Concept[] = ['let', 'return', 'if', 'elseIf', 'else', 'match', 'when', 'forEach', 'fail'];

/** A module: its header, then records, enums and rules (docs/language.md §3). */
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
        this.report(UnexpectedIndentation.atDeclaration(), this.peek());
      }
      const first = this.peek();
      leading = this.leadingComments(first.start);
      if (this.isKw(first, 'module')) {
        header = first;
        name = this.parseHeader(leading);
      } else {
        this.lateHeaderAllowed = true;
        this.report(MissingModuleHeader(this.spell('module'), this.syntax.punctuation.terminator), first);
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
        this.report(UnexpectedIndentation.atDeclaration(), this.peek(1));
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
      if (this.isKw(token, 'workflow')) return this.parseWorkflow(token);
      if (this.isKw(token, 'module')) {
        // A header that comes late was already reported as PL1010; it still names the module.
        if (this.lateHeaderAllowed) {
          this.lateHeaderAllowed = false;
          this.moduleName = this.parseHeader([]);
          return null;
        }
        this.fail(SecondModuleHeader(), token);
      }
      const expected = `\`${this.spell('define')}\`, \`${this.spell('rule')}\` or \`${this.spell('workflow')}\``;
      const isStatement = token.concepts?.some((concept) => STATEMENT_CONCEPTS.includes(concept)) ?? false;
      const guess = token.kind === 'ident' ? suggestName(token.text, [this.spell('define'), this.spell('rule'), this.spell('workflow'), this.spell('module')]) : null;
      return this.fail(UnexpectedToken.declarationExpected(expected, this.describe(token), isStatement, guess), token);
    } catch (error) {
      if (error !== ABORT) throw error;
      this.exprDepth = 0;
      // A rule's block holds statements worth checking; a workflow's steps are skipped with it.
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

  /** `given a as T, b as U` (absent: no parameters); a comma before `produce` is allowed. */
  private parseParams(): ParamDecl[] {
    const params: ParamDecl[] = [];
    if (!this.atKw('given')) return params;
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
    return params;
  }

  private parseRule(token: Token): RuleDecl {
    const leading = this.leadingComments(token.start);
    this.next();
    const name = this.expectName('a rule name');
    const params = this.parseParams();
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

  /** `Workflow name given …:` and its indented `Step` lines (one per line, nothing nested). */
  private parseWorkflow(token: Token): WorkflowDecl {
    const leading = this.leadingComments(token.start);
    this.next();
    const name = this.expectName('a workflow name');
    const params = this.parseParams();
    const colon = this.expectColon();
    this.claimLineComment(colon.line, leading);
    const steps = this.parseSteps(token);
    return { kind: 'WorkflowDecl', id: 0, span: spanFrom(token, this.lastToken), leadingComments: leading, name: name.text, params, steps };
  }

  private parseSteps(header: Token): StepDecl[] {
    if (this.at('newline')) this.next();
    if (!this.at('indent')) {
      this.report(MissingBlock.steps(this.spell('step')), header);
      return [];
    }
    this.next();
    const steps: StepDecl[] = [];
    this.blockDepth++;
    if (this.blockDepth > MAX_NESTING) {
      this.reportNesting(header);
      this.skipRestOfBlock();
    } else {
      for (;;) {
        const token = this.peek();
        if (token.kind === 'dedent' || token.kind === 'eof') break;
        if (token.kind === 'newline') {
          this.next();
          continue;
        }
        if (token.kind === 'indent') {
          this.report(UnexpectedIndentation.inWorkflow(), this.peek(1));
          this.skipIndentedBlock();
          continue;
        }
        try {
          steps.push(this.parseStep(token));
        } catch (error) {
          if (error !== ABORT) throw error;
          this.exprDepth = 0;
          this.recoverLine(false);
        }
      }
    }
    this.blockDepth--;
    if (this.at('dedent')) this.next();
    return steps;
  }

  /** `Step name: rule(args)[, compensate with rule(args)].` or `Step name: Await "signal" [within n unit].` */
  private parseStep(token: Token): StepDecl {
    if (!this.isKw(token, 'step')) {
      this.fail(UnexpectedToken.stepExpected(this.spell('step'), this.describe(token)), token);
    }
    const leading = this.leadingComments(token.start);
    this.next();
    const name = this.expectName('a step name');
    this.expectKind('colon', `\`${this.syntax.punctuation.colon}\` after the step name`);
    const action = this.atKw('await') ? this.parseAwait() : this.parseRuleStep();
    const end = this.expectTerminator('statement');
    this.claimLineComment(end.line, leading);
    return { kind: 'Step', id: 0, span: spanFrom(token, end), leadingComments: leading, name: name.text, action };
  }

  private parseRuleStep(): RuleStepAction {
    const call = this.stepCall();
    let compensate: CallExpr | null = null;
    if (this.at('comma')) {
      this.next();
      this.expectKw('compensateWith');
      compensate = this.stepCall();
    }
    return { kind: 'RuleStep', id: 0, span: spanFrom(call.span, (compensate ?? call).span), call, compensate };
  }

  private stepCall(): CallExpr {
    const start = this.peek();
    const expr: Expr = this.parseExpr();
    if (expr.kind !== 'Call') {
      this.fail(StepWithoutAction(this.spell('await')), expr.span ?? start);
    }
    return expr;
  }

  private parseAwait(): AwaitStepAction {
    const keyword = this.next();
    const signalToken = this.expectKind('string', 'the signal name in quotes');
    const signal = { kind: 'TextLiteral' as const, id: 0, span: spanOf(signalToken), value: signalToken.value as string };
    let within: DurationNode | null = null;
    if (this.atDurationWord('within')) {
      const word = this.next();
      const amount = this.expectKind('int', 'a whole number of minutes, hours or days');
      const unitToken = this.peek();
      const unit = (['minutes', 'hours', 'days'] as const).find((u) => this.atDurationWord(u));
      if (unit === undefined) {
        const units = (['minutes', 'hours', 'days'] as const).map((u) => `\`${this.syntax.durations[u][0]}\``).join(', ');
        this.unexpected(`a unit: ${units}`);
      }
      this.next();
      within = { kind: 'Duration', id: 0, span: spanFrom(word, unitToken), amount: amount.value as number, unit: unit as DurationUnit };
    }
    return { kind: 'AwaitStep', id: 0, span: spanFrom(keyword, within?.span ?? signal.span), signal, within };
  }

  /** Duration words are names everywhere else, so they are matched here by their text. */
  private atDurationWord(which: keyof LocaleDurations): boolean {
    const token = this.peek();
    if (token.kind !== 'ident') return false;
    const key = keywordKey(token.text, this.syntax);
    return this.syntax.durations[which].some((word) => keywordKey(word, this.syntax) === key);
  }
}
