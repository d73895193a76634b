/** Texts by name, least recently used first out once their total length passes `maxBytes`. */
export class TextCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(name: string): string | undefined {
    const t = this.entries.get(name);
    if (t !== undefined) {
      this.entries.delete(name);
      this.entries.set(name, t);
    }
    return t;
  }

  set(name: string, t: string): void {
    const size = t.length * 2;
    if (size > this.maxBytes) return;
    const old = this.entries.get(name);
    if (old !== undefined) {
      this.entries.delete(name);
      this.bytes -= old.length * 2;
    }
    this.entries.set(name, t);
    this.bytes += size;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.length * 2;
    }
  }
}
