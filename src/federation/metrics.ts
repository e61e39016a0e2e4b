/**
 * Federation's metrics (/metrics): delivery attempts by outcome, inbox requests by outcome, and
 * the deliveries and followers by state (read from the database when scraped). The gauges are the
 * service's, every calendar's together (one statement each): a label per calendar would make a
 * set of series as large as the number of calendars; each calendar's own counts are in its
 * administration (`GET …/federation`).
 *
 * @example
 *   const metrics = createFederationMetrics(services.federationStore);
 *   metrics.delivered.inc({ outcome: 'delivered' });
 *   metrics.register(registry);
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { FederationStore } from '../domain/federation-store.js';

export interface FederationMetrics {
  delivered: Counter<'outcome'>;
  inbox: Counter<'outcome'>;
  register(registry: Registry): void;
}

export function createFederationMetrics(store: FederationStore): FederationMetrics {
  const delivered = new Counter({
    name: 'calendar_federation_deliveries_total',
    help: 'Delivery attempts of activities to fediverse inboxes, by outcome',
    labelNames: ['outcome'],
    registers: [],
  });
  const inbox = new Counter({ name: 'calendar_federation_inbox_requests_total', help: 'Requests to the federation inboxes, by outcome', labelNames: ['outcome'], registers: [] });
  const deliveries = new Gauge({
    name: 'calendar_federation_deliveries',
    help: 'Deliveries of activities of every calendar by state (pending, delivered, failed, gone)',
    labelNames: ['status'],
    registers: [],
    async collect() {
      const counts = await store.serviceDeliveryCounts().catch(() => ({}) as Record<string, number>);
      for (const s of ['pending', 'delivered', 'failed', 'gone']) this.set({ status: s }, counts[s] ?? 0);
    },
  });
  const followers = new Gauge({
    name: 'calendar_federation_followers',
    help: 'Fediverse followers of every calendar, by state (accepted, pending)',
    labelNames: ['status'],
    registers: [],
    async collect() {
      const counts = await store.serviceFollowerCounts().catch(() => ({}) as Record<string, number>);
      for (const s of ['accepted', 'pending']) this.set({ status: s }, counts[s] ?? 0);
    },
  });
  return {
    delivered,
    inbox,
    register(registry) {
      registry.registerMetric(delivered);
      registry.registerMetric(inbox);
      registry.registerMetric(deliveries);
      registry.registerMetric(followers);
    },
  };
}
