/**
 * Items in arrival order for one reader at a time: `take` resolves with the oldest item, waiting up
 * to `timeoutMs` for one. Once `end(err)` is called, what is already queued is still handed out and
 * every later `take` rejects with `err` (a connection that closed after sending its last message).
 */
export class Inbox<T> {
  readonly #items: T[] = [];
  readonly #waiting: { resolve(item: T): void; reject(err: Error): void }[] = [];
  #ended: Error | undefined;

  push(item: T): void {
    if (this.#ended) return;
    const waiter = this.#waiting.shift();
    if (waiter) waiter.resolve(item);
    else this.#items.push(item);
  }

  end(err: Error): void {
    if (this.#ended) return;
    this.#ended = err;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(err);
  }

  get ended(): boolean {
    return this.#ended !== undefined;
  }

  take(timeoutMs: number, what: string): Promise<T> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift() as T);
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve: (item: T) => {
          clearTimeout(timer);
          resolve(item);
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new Error(`no ${what} within ${String(timeoutMs)} ms`));
      }, timeoutMs);
      this.#waiting.push(waiter);
    });
  }
}
