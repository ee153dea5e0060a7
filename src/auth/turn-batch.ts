/**
 * Gathers the calls made during one turn of the event loop and hands them to `run` as one list, so
 * that requests arriving together share one Redis round trip instead of paying one each. `run`
 * answers with one output per input, in input order; if it rejects, every call of the turn rejects
 * with its error.
 */
export function createTurnBatch<In, Out>(run: (inputs: In[]) => Promise<Out[]>): (input: In) => Promise<Out> {
  let inputs: In[] = [];
  let settlers: Array<{ resolve(output: Out): void; reject(error: unknown): void }> = [];

  function flush(): void {
    const batch = inputs;
    const waiting = settlers;
    inputs = [];
    settlers = [];
    let running: Promise<Out[]>;
    try {
      running = run(batch);
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (outputs) => {
        if (outputs.length !== batch.length) {
          const error = new Error(`turn batch: ${outputs.length} answers for ${batch.length} calls`);
          for (const settler of waiting) settler.reject(error);
          return;
        }
        waiting.forEach((settler, index) => settler.resolve(outputs[index]!));
      },
      (error: unknown) => {
        for (const settler of waiting) settler.reject(error);
      },
    );
  }

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (inputs.length === 0) setImmediate(flush);
      inputs.push(input);
      settlers.push({ resolve, reject });
    });
}
