// Preloaded into the API and the worker (node --import) by bench/memory.mjs; answers over the IPC
// channel what the process's memory is made of, so a growing RSS can be told apart: the JS heap
// (live objects, or only V8's headroom), external and ArrayBuffer memory, or native memory outside
// V8 (the allocator, TLS, libuv).
//   {memory: 'usage'}              → {memoryUsage: process.memoryUsage()}
//   {memory: 'gc'}                 → the same after a full garbage collection (needs --expose-gc),
//                                    with V8's heap spaces
//   {memory: 'snapshot', file}     → writes a heap snapshot (v8.writeHeapSnapshot), {snapshotWritten}
// Nothing happens unless asked; the channel never keeps the process alive.
import v8 from 'node:v8';

if (process.send) {
  process.on('message', (message) => {
    if (!message || typeof message !== 'object' || !('memory' in message)) return;
    const { id } = message;
    if (message.memory === 'usage') process.send({ id, memoryUsage: process.memoryUsage() });
    else if (message.memory === 'gc') {
      if (typeof globalThis.gc === 'function') globalThis.gc();
      process.send({
        id,
        memoryUsage: process.memoryUsage(),
        collected: typeof globalThis.gc === 'function',
        heapSpaces: v8
          .getHeapSpaceStatistics()
          .map((s) => ({ space: s.space_name, used: s.space_used_size, size: s.space_size })),
      });
    } else if (message.memory === 'snapshot')
      process.send({ id, snapshotWritten: v8.writeHeapSnapshot(message.file) });
  });
  process.channel?.unref();
}
