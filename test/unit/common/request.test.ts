import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToBase64, isBytes, isUrl, settingsOf, toWire } from '../../../common/request.js';

describe('toWire', () => {
  it('makes bytes base64, URLs and dates text, and leaves out undefined fields, at any depth', () => {
    expect(
      toWire({
        a: new Uint8Array([1, 2, 3]),
        b: [new URL('https://example.com/x'), new Date('2026-01-02T03:04:05.000Z')],
        c: { d: undefined, e: new Uint8Array([255]).buffer, f: null, g: 'text', h: 1.5, i: false },
      }),
    ).toEqual({
      a: 'AQID',
      b: ['https://example.com/x', '2026-01-02T03:04:05.000Z'],
      c: { e: '/w==', f: null, g: 'text', h: 1.5, i: false },
    });
  });

  it('encodes bytes as base64 exactly as Node does, whatever their length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
        expect(toWire(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      }),
    );
  });

  it('gives JSON back as it is (a JSON round trip changes nothing)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const json = JSON.parse(JSON.stringify(value)) as unknown;
        expect(toWire(json)).toEqual(json);
        expect(JSON.stringify(toWire(json))).toBe(JSON.stringify(json));
      }),
    );
  });

  it('keeps a `__proto__` key of parsed JSON as data, without touching the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":1},"a":2}') as Record<string, unknown>;
    const wire = toWire(parsed) as Record<string, unknown>;
    expect(Object.keys(wire)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(wire)).toBe('{"__proto__":{"polluted":1},"a":2}');
    expect(Object.getPrototypeOf(wire)).toBe(Object.prototype);
    expect(wire.polluted).toBeUndefined();
  });

  it('knows bytes and URLs made in another realm', () => {
    expect(isBytes(new Uint8Array(1))).toBe(true);
    expect(isBytes(Buffer.from('x'))).toBe(true);
    expect(isBytes(new Uint16Array(1))).toBe(false);
    expect(isBytes('AQID')).toBe(false);
    expect(isUrl(new URL('https://example.com'))).toBe(true);
    expect(isUrl('https://example.com')).toBe(false);
    expect(isUrl({ href: 'https://example.com' })).toBe(false);
  });
});

describe('settingsOf', () => {
  it('keeps the settings that are set and nothing else of a request', () => {
    expect(
      settingsOf({
        temperature: 0,
        topK: undefined,
        seed: 7,
        reasoning: 'low',
        ...({ prompt: [], headers: { a: 'b' } } as object),
      }),
    ).toEqual({ temperature: 0, seed: 7, reasoning: 'low' });
  });
});
