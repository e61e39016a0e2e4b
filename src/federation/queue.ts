/**
 * Fedify's message queue over our database (`federation_queue`, migration 016): incoming
 * activities, once Fedify has verified their signature, wait here and are handled by a job on the
 * runner (`federation-inbox`, which calls `federation.processQueuedTask`), so that an activity
 * accepted with 202 is handled even if the process stops right after, and any instance may handle
 * it. Fedify's own retry policy re-enqueues a message whose listener failed, with a delay;
 * messages with one ordering key are handled one at a time, in order. Fedify never listens to it
 * (`manuallyStartQueue`): the job drains it.
 *
 * @example
 *   const queue = createMessageQueue(services.federationStore, () => job.nudge());
 *   createFederation({ kv, queue: { inbox: queue }, manuallyStartQueue: true });
 */
import type { MessageQueue, MessageQueueEnqueueOptions } from '@fedify/fedify';
import type { FederationStore } from '../domain/federation-store.js';

export function createMessageQueue(store: FederationStore, onEnqueued: () => void): MessageQueue {
  const delayMs = (options?: MessageQueueEnqueueOptions) => (options?.delay ? Math.max(0, options.delay.total('millisecond')) : 0);
  const put = async (messages: readonly unknown[], options?: MessageQueueEnqueueOptions) => {
    const now = Date.now();
    await store.enqueueMessages(
      messages.map((m) => ({ message: JSON.stringify(m), ordering_key: options?.orderingKey ?? null })),
      now + delayMs(options),
      now,
    );
    onEnqueued();
  };
  return {
    nativeRetrial: false,
    enqueue: (message, options) => put([message], options),
    enqueueMany: (messages, options) => put(messages, options),
    async listen(_handler, options) {
      // The job drains the queue; a listener only waits for its end.
      await new Promise<void>((resolve) => {
        if (!options?.signal) return;
        if (options.signal.aborted) resolve();
        options.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    },
    getDepth: () => store.queueDepth(Date.now()),
  };
}
