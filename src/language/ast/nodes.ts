/**
 * The locale-free syntax tree shared by the parser, checker, compiler and formatter.
 *
 * Nodes carry a numeric `id` (unique within one parse, assigned in source order) and a `span`.
 * Phases after parsing never mutate nodes: the checker records types and name resolutions in maps
 * keyed by node id. Two trees are "equal" for round-trip purposes when they are equal with every
 * `id` and `span` removed (see `stripPositions`).
 */

/** Offsets are UTF-16 code-unit indices into the original source; lines and columns are 1-based. */
export interface Span {
  start: number;
  end: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface NodeBase {
  id: number;
  span: Span;
}

// ---------- types written in source ----------

export type PrimitiveTypeName = 'Int' | 'Float' | 'Text' | 'Bool';

export interface PrimitiveTypeRef extends NodeBase {
  kind: 'PrimitiveType';
  name: PrimitiveTypeName;
}

/** A record or enum name. */
export interface NamedTypeRef extends NodeBase {
  kind: 'NamedType';
  name: string;
}

export interface ListTypeRef extends NodeBase {
  kind: 'ListType';
  element: TypeRef;
}

export type TypeRef = PrimitiveTypeRef | NamedTypeRef | ListTypeRef;

// ---------- module and declarations ----------

/** Full-line comments directly above a declaration or statement, text after `#`/`//`, trimmed. */
export interface Commented {
  leadingComments: string[];
}

export interface ModuleNode extends NodeBase, Commented {
  kind: 'Module';
  /** `Module a.b.c.` → ['a', 'b', 'c'] */
  name: string[];
  declarations: Declaration[];
  /** Full-line comments after the last declaration. */
  trailingComments: string[];
}

export interface FieldDecl extends NodeBase {
  kind: 'FieldDecl';
  name: string;
  type: TypeRef;
}

export interface RecordDecl extends NodeBase, Commented {
  kind: 'RecordDecl';
  name: string;
  fields: FieldDecl[];
}

export interface EnumVariantDecl extends NodeBase {
  kind: 'EnumVariant';
  name: string;
}

export interface EnumDecl extends NodeBase, Commented {
  kind: 'EnumDecl';
  name: string;
  variants: EnumVariantDecl[];
}

export interface ParamDecl extends NodeBase {
  kind: 'Param';
  name: string;
  type: TypeRef;
}

export interface RuleDecl extends NodeBase, Commented {
  kind: 'RuleDecl';
  name: string;
  params: ParamDecl[];
  returnType: TypeRef;
  body: Statement[];
}

export type DurationUnit = 'minutes' | 'hours' | 'days';

/** `within 48 hours`: how long an awaited signal may take. */
export interface DurationNode extends NodeBase {
  kind: 'Duration';
  amount: number;
  unit: DurationUnit;
}

/** `creditAcceptable(applicant), compensate with releaseCreditHold(applicant)`: Bool rules of the module. */
export interface RuleStepAction extends NodeBase {
  kind: 'RuleStep';
  call: CallExpr;
  /** Run when a later step fails; null when the step needs no undoing. */
  compensate: CallExpr | null;
}

/** `Await "underwriter-approval" within 48 hours`: past the limit the step's result is false. */
export interface AwaitStepAction extends NodeBase {
  kind: 'AwaitStep';
  signal: TextLiteral;
  within: DurationNode | null;
}

export interface StepDecl extends NodeBase, Commented {
  kind: 'Step';
  name: string;
  action: RuleStepAction | AwaitStepAction;
}

/** A workflow: named steps run in order with the workflow's parameters. */
export interface WorkflowDecl extends NodeBase, Commented {
  kind: 'WorkflowDecl';
  name: string;
  params: ParamDecl[];
  steps: StepDecl[];
}

export type Declaration = RecordDecl | EnumDecl | RuleDecl | WorkflowDecl;

// ---------- statements ----------

export interface LetStmt extends NodeBase, Commented {
  kind: 'Let';
  name: string;
  value: Expr;
}

export interface ReturnStmt extends NodeBase, Commented {
  kind: 'Return';
  value: Expr;
}

export interface IfBranch extends NodeBase {
  kind: 'IfBranch';
  condition: Expr;
  body: Statement[];
}

/** `If` + `Otherwise if`… are `branches` in order; `Otherwise:` is `otherwise` (null when absent). */
export interface IfStmt extends NodeBase, Commented {
  kind: 'If';
  branches: IfBranch[];
  otherwise: Statement[] | null;
}

export interface IntPattern extends NodeBase {
  kind: 'IntPattern';
  value: number;
}

export interface TextPattern extends NodeBase {
  kind: 'TextPattern';
  value: string;
}

/** `Prime` (enumName null) or `Tier.Prime`. */
export interface VariantPattern extends NodeBase {
  kind: 'VariantPattern';
  enumName: string | null;
  variant: string;
}

export type MatchPattern = IntPattern | TextPattern | VariantPattern;

export interface MatchCase extends NodeBase {
  kind: 'MatchCase';
  patterns: MatchPattern[];
  body: Statement[];
}

export interface MatchStmt extends NodeBase, Commented {
  kind: 'Match';
  subject: Expr;
  cases: MatchCase[];
  otherwise: Statement[] | null;
}

export interface ForEachStmt extends NodeBase, Commented {
  kind: 'ForEach';
  variable: string;
  iterable: Expr;
  body: Statement[];
}

export interface FailStmt extends NodeBase, Commented {
  kind: 'Fail';
  message: Expr;
}

export type Statement = LetStmt | ReturnStmt | IfStmt | MatchStmt | ForEachStmt | FailStmt;

// ---------- expressions ----------

export interface IntLiteral extends NodeBase {
  kind: 'IntLiteral';
  value: number;
}

/** Kept distinct from IntLiteral so `12.0` stays a Float through formatting. */
export interface FloatLiteral extends NodeBase {
  kind: 'FloatLiteral';
  value: number;
}

export interface TextLiteral extends NodeBase {
  kind: 'TextLiteral';
  value: string;
}

export interface BoolLiteral extends NodeBase {
  kind: 'BoolLiteral';
  value: boolean;
}

/** A variable, parameter, or bare enum variant; the checker decides which. */
export interface NameExpr extends NodeBase {
  kind: 'Name';
  name: string;
}

export interface ListExpr extends NodeBase {
  kind: 'List';
  elements: Expr[];
}

export interface RecordFieldInit extends NodeBase {
  kind: 'FieldInit';
  name: string;
  value: Expr;
}

export interface RecordExpr extends NodeBase {
  kind: 'Record';
  typeName: string;
  fields: RecordFieldInit[];
}

/** `a.b`; also a qualified enum variant `Tier.Prime` (the checker decides). */
export interface FieldAccessExpr extends NodeBase {
  kind: 'FieldAccess';
  object: Expr;
  field: string;
}

/** Calls a rule of the module or a built-in function, by name. */
export interface CallExpr extends NodeBase {
  kind: 'Call';
  callee: string;
  args: Expr[];
}

export type UnaryOp = 'neg' | 'not';

export interface UnaryExpr extends NodeBase {
  kind: 'Unary';
  op: UnaryOp;
  operand: Expr;
}

export type BinaryOp = 'or' | 'and' | 'add' | 'sub' | 'mul' | 'div' | 'mod';

export interface BinaryExpr extends NodeBase {
  kind: 'Binary';
  op: BinaryOp;
  left: Expr;
  right: Expr;
}

/** `in` is `is one of`; `contains` is list membership or substring. */
export type CompareOp = 'eq' | 'ne' | 'lt' | 'gt' | 'ge' | 'le' | 'in' | 'contains';

export interface CompareExpr extends NodeBase {
  kind: 'Compare';
  op: CompareOp;
  left: Expr;
  right: Expr;
}

/** `value is between low and high`, inclusive. */
export interface BetweenExpr extends NodeBase {
  kind: 'Between';
  value: Expr;
  low: Expr;
  high: Expr;
}

export type Expr =
  | IntLiteral
  | FloatLiteral
  | TextLiteral
  | BoolLiteral
  | NameExpr
  | ListExpr
  | RecordExpr
  | FieldAccessExpr
  | CallExpr
  | UnaryExpr
  | BinaryExpr
  | CompareExpr
  | BetweenExpr;

export type Node =
  | ModuleNode
  | Declaration
  | FieldDecl
  | EnumVariantDecl
  | ParamDecl
  | TypeRef
  | Statement
  | IfBranch
  | MatchCase
  | MatchPattern
  | Expr
  | RecordFieldInit;
