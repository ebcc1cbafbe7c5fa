import ts from 'typescript';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const LEVELS = new Set(['info', 'warn', 'error', 'fatal']);

/** One call at info or above in the source: where, and the messages it can write. */
export interface SourceMessage {
  readonly where: string;
  /** Each message it can write; `<>` stands for a value put in (a template's substitution). */
  readonly messages: readonly string[];
  /** The message is an expression whose values the types do not tell (a caller's option). */
  readonly unresolved?: string;
}

/** The messages of `x.info(…)`, `x.warn(…)`, … in the product's, the client's and the sandbox's source. */
export function sourceMessages(): SourceMessage[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const packages = ['client', 'sandbox'].flatMap((name) =>
    ts.sys.readDirectory(join(ROOT, 'packages', name, 'src'), ['.ts'], ['**/*.d.ts']),
  );
  const files = [
    ...config.fileNames.filter((file) => file.slice(ROOT.length).startsWith('/src/')),
    ...packages,
  ];
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const found: SourceMessage[] = [];
  const sources = files.flatMap((file) => program.getSourceFile(file) ?? []);
  for (const source of sources) visit(source, source, checker, found);
  // A message a caller gives as an option (`runUntilSignal({ stoppingMessage: '…' })`): its values.
  return found.map((one) => {
    const option = /^options\.(\w+Message)$/.exec(one.unresolved ?? '')?.[1];
    if (option === undefined) return one;
    return { where: one.where, messages: [...one.messages, ...optionValues(option, sources)] };
  });
}

function visit(
  node: ts.Node,
  source: ts.SourceFile,
  checker: ts.TypeChecker,
  found: SourceMessage[],
): void {
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    LEVELS.has(node.expression.name.text) &&
    node.arguments.length > 0
  ) {
    const message = node.arguments[node.arguments.length - 1];
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    const where = `${source.fileName.slice(ROOT.length + 1)}:${String(line + 1)}`;
    if (message !== undefined) found.push({ where, ...messagesOf(message, checker) });
  }
  ts.forEachChild(node, (child) => {
    visit(child, source, checker, found);
  });
}

function messagesOf(node: ts.Expression, checker: ts.TypeChecker): Messages {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return { messages: [node.text] };
  if (ts.isTemplateExpression(node))
    return {
      messages: [
        [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('<>'),
      ],
    };
  if (ts.isConditionalExpression(node))
    return both(messagesOf(node.whenTrue, checker), messagesOf(node.whenFalse, checker));
  if (ts.isParenthesizedExpression(node)) return messagesOf(node.expression, checker);
  if (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken
  )
    return both(messagesOf(node.left, checker), messagesOf(node.right, checker));
  const type = checker.getTypeAtLocation(node);
  const parts = type.isUnion() ? type.types : [type];
  if (parts.every((part) => part.isStringLiteral()))
    return { messages: parts.map((part) => (part as ts.StringLiteralType).value) };
  return { messages: [], unresolved: node.getText() };
}

type Messages = { messages: string[]; unresolved?: string };

function both(a: Messages, b: Messages): Messages {
  const unresolved = a.unresolved ?? b.unresolved;
  return {
    messages: [...a.messages, ...b.messages],
    ...(unresolved === undefined ? {} : { unresolved }),
  };
}

/** The string literals given anywhere in the source to an option of this name (`stoppingMessage: '…'`). */
function optionValues(name: string, files: readonly ts.SourceFile[]): string[] {
  const values: string[] = [];
  const look = (node: ts.Node): void => {
    if (
      ts.isPropertyAssignment(node) &&
      node.name.getText() === name &&
      (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer))
    )
      values.push(node.initializer.text);
    ts.forEachChild(node, look);
  };
  for (const file of files) look(file);
  return values;
}
