/**
 * Where the dense trunk goes (PROTOCOL.md, "Dense residents"): a pure function of the
 * offers and the devices' room, run by init before any expert is charged.
 *
 * Every trunk matrix is read once per token, so the time a resident one saves grows with
 * its payload: its value per charged byte is payload / charge (the allocator's rounding
 * is the waste). The placer takes the offers best value per byte first (ties: in offer
 * order), each onto the device with the most room left that holds its charge (ties: the
 * lower device), and leaves on the CPU what fits nowhere. Experts, read only when routed,
 * come after: they get what the trunk left of the budget.
 */
import type { TrunkOffer } from './config.js';
import { allocFootprint } from './sizes.js';

/** What a trunk matrix is charged on its device: its weight and scale allocations. */
export function trunkCharge(o: TrunkOffer): number {
  return allocFootprint(o.weightBytes) + (o.scaleBytes > 0 ? allocFootprint(o.scaleBytes) : 0);
}

/** The offers' indices in placement order: best payload per charged byte first (the sort
 *  is stable, so equal values keep offer order). */
export function trunkOrder(offers: readonly TrunkOffer[]): number[] {
  const value = offers.map((o) => (o.weightBytes + o.scaleBytes) / Math.max(1, trunkCharge(o)));
  return offers.map((_, i) => i).sort((a, b) => (value[b] ?? 0) - (value[a] ?? 0));
}

/** The device with the most room (budget - used) that holds `charge`; -1 when none does. */
export function roomiestDevice(budget: readonly number[], used: readonly number[], charge: number): number {
  let best = -1;
  let bestRoom = Number.NEGATIVE_INFINITY;
  budget.forEach((b, d) => {
    const room = b - (used[d] ?? 0);
    if (room >= charge && room > bestRoom) {
      best = d;
      bestRoom = room;
    }
  });
  return best;
}
