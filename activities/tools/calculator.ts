/**
 * A safe arithmetic evaluator for the `calculator` tool: numbers, `+ - * / % ^`, unary minus and parentheses,
 * parsed by recursive descent. No `eval`, no names, no functions.
 */

/** An expression the calculator cannot evaluate; the message says where. */
export class CalculatorError extends Error {
  override name = 'CalculatorError';
}

const MAX_LENGTH = 500;

/** The value of an arithmetic expression such as `(2 + 3) * 4 ^ 2 / 8`. */
export function evaluate(expression: string): number {
  if (expression.length > MAX_LENGTH)
    throw new CalculatorError(`the expression is over ${MAX_LENGTH} characters`);
  const tokens = tokenize(expression);
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const take = (): string | undefined => tokens[pos++];

  // expr := term (('+' | '-') term)*
  const expr = (): number => {
    let value = term();
    while (peek() === '+' || peek() === '-') value = take() === '+' ? value + term() : value - term();
    return value;
  };
  // term := power (('*' | '/' | '%') power)*
  const term = (): number => {
    let value = unary();
    for (let op = peek(); op === '*' || op === '/' || op === '%'; op = peek()) {
      take();
      const right = unary();
      if (op !== '*' && right === 0) throw new CalculatorError('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  };
  // unary := '-' unary | '+' unary | power
  const unary = (): number => {
    if (peek() === '-') {
      take();
      return -unary();
    }
    if (peek() === '+') {
      take();
      return unary();
    }
    return power();
  };
  // power := atom ('^' unary)?   (right-associative)
  const power = (): number => {
    const base = atom();
    if (peek() !== '^') return base;
    take();
    return base ** unary();
  };
  // atom := number | '(' expr ')'
  const atom = (): number => {
    const token = take();
    if (token === undefined) throw new CalculatorError('the expression ends too early');
    if (token === '(') {
      const value = expr();
      if (take() !== ')') throw new CalculatorError('a `(` is not closed');
      return value;
    }
    const value = Number(token);
    if (!/^\d/.test(token) && !/^\.\d/.test(token)) throw new CalculatorError(`unexpected \`${token}\``);
    return value;
  };

  if (tokens.length === 0) throw new CalculatorError('the expression is empty');
  const value = expr();
  if (pos < tokens.length) throw new CalculatorError(`unexpected \`${tokens[pos] ?? ''}\``);
  if (!Number.isFinite(value)) throw new CalculatorError('the result is not a finite number');
  return value;
}

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([-+*/%^()]))/y;
  let index = 0;
  while (index < expression.length) {
    if (/^\s*$/.test(expression.slice(index))) break;
    re.lastIndex = index;
    const m = re.exec(expression);
    if (!m) throw new CalculatorError(`cannot read \`${expression.slice(index).trim().slice(0, 20)}\``);
    tokens.push((m[1] ?? m[2]) as string);
    index = re.lastIndex;
  }
  return tokens;
}
