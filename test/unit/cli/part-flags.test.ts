import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/args.js';
import { partFlagOf, partsFromFlags, userMessageOf } from '../../../cli/part-flags.js';
import { runCli } from '../../harness/cli.js';

const BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
/** Reads every path as the same six bytes, without touching the disk. */
const read = () => BYTES;

describe('--image FILE and --file FILE', () => {
  it.each([
    ['photo.png', 'image/png'],
    ['photo.PNG', 'image/png'],
    ['photo.jpg', 'image/jpeg'],
    ['photo.jpeg', 'image/jpeg'],
    ['anim.gif', 'image/gif'],
    ['photo.webp', 'image/webp'],
    ['photo.heic:image/heic', 'image/heic'],
  ])('--image %s is an image part of type %s with the file bytes', (given, mediaType) => {
    const [part] = partsFromFlags({ image: [given] }, read);
    expect(part).toMatchObject({ type: 'image', mediaType, image: BYTES, flag: '--image' });
  });

  it.each([
    ['report.pdf', 'application/pdf'],
    ['notes.txt', 'text/plain'],
    ['README.md', 'text/markdown'],
    ['data.json', 'application/json'],
    ['table.CSV', 'text/csv'],
    ['deck.pptx:application/vnd.ms-powerpoint', 'application/vnd.ms-powerpoint'],
    ['C:\\docs\\a.bin:application/octet-stream', 'application/octet-stream'],
  ])('--file %s is a file part of type %s named after the file', (given, mediaType) => {
    const [part] = partsFromFlags({ file: [given] }, read);
    expect(part).toMatchObject({ type: 'file', mediaType, data: BYTES, flag: '--file' });
    expect(part?.type === 'file' && part.filename).not.toContain(mediaType);
  });

  it('puts images first, then files, each in the order given', () => {
    const parts = partsFromFlags({ file: ['b.pdf', 'a.txt'], image: ['2.png', '1.gif'] }, read);
    expect(parts.map((p) => p.path)).toEqual(['2.png', '1.gif', 'b.pdf', 'a.txt']);
  });

  it.each([
    [
      { image: ['photo.bmp'] },
      '`--image` "photo.bmp": cannot tell its media type from the extension (png, jpg, jpeg, gif, webp): give it as `--image photo.bmp:image/TYPE`',
    ],
    [
      { image: ['doc.pdf:application/pdf'] },
      'application/pdf is not an image type: give `--image FILE:image/TYPE`, or send the file with `--file`',
    ],
    [
      { file: ['slides.docx'] },
      '`--file` "slides.docx": cannot tell its media type from the extension (pdf, txt, md, json, csv): give it as `--file slides.docx:media/type`',
    ],
    [{ file: ['photo.png'] }, 'or send an image with `--image`'],
    [{ file: ['noextension'] }, 'give it as `--file noextension:media/type`'],
    [{ image: [''] }, '`--image` is empty'],
  ])('refuses %j, naming the flag and the fix', (values, message) => {
    expect(() => partsFromFlags(values, read)).toThrow(UsageError);
    expect(() => partsFromFlags(values, read)).toThrow(message);
  });

  describe('on disk', () => {
    const dir = mkdtempSync(join(tmpdir(), 'part-flags-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the bytes of the file', () => {
      const path = join(dir, 'pixel.png');
      writeFileSync(path, BYTES);
      const [part] = partsFromFlags({ image: [path] });
      expect(part?.type === 'image' && [...part.image]).toEqual([...BYTES]);
    });

    it.each([
      ['a file that is not there', 'missing.png', '(ENOENT): check the path'],
      ['an empty file', 'empty.png', 'is empty: give a file with something in it'],
    ])('refuses %s', (_what, name, message) => {
      if (name === 'empty.png') writeFileSync(join(dir, name), '');
      expect(() => partsFromFlags({ image: [join(dir, name)] })).toThrow(message);
    });
  });
});

describe('the user message of a prompt with parts', () => {
  it('holds the prompt, then each part, as wire file parts with base64 bytes', () => {
    const parts = partsFromFlags({ image: ['cat.png'], file: ['cat.pdf'] }, read);
    expect(userMessageOf('what is this?', parts)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'file', data: { type: 'data', data: 'iVBORwD/' }, mediaType: 'image/png' },
        {
          type: 'file',
          data: { type: 'data', data: 'iVBORwD/' },
          mediaType: 'application/pdf',
          filename: 'cat.pdf',
        },
      ],
    });
  });

  it.each([
    ['messages[0].content[0].text', '--prompt'],
    ['messages[0].content[1].data', '--image cat.png'],
    ['messages[0].content[2].mediaType', '--file cat.pdf'],
    ['messages[0]', '--file cat.pdf'],
    ['messages', '--file cat.pdf'],
    ['prompt', undefined],
  ])('words a refused %s as %s', (field, flag) => {
    const parts = partsFromFlags({ image: ['cat.png'], file: ['cat.pdf'] }, (path) =>
      path.endsWith('.pdf') ? new Uint8Array(600) : BYTES,
    );
    expect(partFlagOf(field, { flag: '--prompt', text: 'hi' }, parts)).toBe(flag);
  });

  it('names the prompt when it is the largest piece of an oversized message', () => {
    const parts = partsFromFlags({ image: ['cat.png'] }, read);
    expect(partFlagOf('messages[0]', { flag: '--prompt-file', text: 'long '.repeat(100) }, parts)).toBe(
      '--prompt-file',
    );
  });
});

describe('model-retry call and turn with parts, before connecting', () => {
  const NO_SERVER = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

  it.each(['call', 'turn'])(
    '%s refuses an image of unknown type with exit 2, naming the flag',
    async (command) => {
      const { code, stderr } = await runCli(
        [command, '--model', 'local:fast', '--prompt', 'hi', '--no-retry', '--image', 'photo.tiff'],
        NO_SERVER,
      );
      expect(code).toBe(2);
      expect(stderr).toContain('`--image` "photo.tiff": cannot tell its media type');
      expect(stderr).not.toContain('cannot reach Temporal');
    },
  );
});
