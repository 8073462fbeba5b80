/** A growable Float64Array: numbers collected one by one, handed on as one typed array. */
export class Doubles {
  values = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  /** The values in an array of their own (a transferable buffer of the right size). */
  done(): Float64Array {
    return this.values.slice(0, this.length);
  }
}
