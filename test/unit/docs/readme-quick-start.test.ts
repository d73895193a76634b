import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The README's quick start shows the files of examples/quick-start/, which the type checker checks. Each code block
 * follows a comment naming its file, so the README cannot drift from code that compiles.
 */
const root = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

const QUICK_START_FILES = [
  'examples/quick-start/workflows.ts',
  'examples/quick-start/worker.ts',
  'examples/quick-start/host.ts',
];

/** The fenced block that follows `<!-- path -->` in the markdown, or undefined when there is none. */
function blockAfter(markdown: string, path: string): string | undefined {
  const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`<!-- ${escaped} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown);
  return match?.[1];
}

describe("the README's quick start", () => {
  const readme = read('README.md');

  it.each(QUICK_START_FILES)('shows %s exactly as it is', (path) => {
    const block = blockAfter(readme, path);
    expect(block, `README.md has no code block after <!-- ${path} -->`).toBeDefined();
    expect(block).toBe(read(path).replace(/\n+$/, ''));
  });

  it('has install and the example in its first screen', () => {
    const firstScreen = readme.split('\n').slice(0, 45).join('\n');
    expect(firstScreen).toContain('npm install model-retry');
    expect(firstScreen).toContain('<!-- examples/quick-start/workflows.ts -->');
  });
});
