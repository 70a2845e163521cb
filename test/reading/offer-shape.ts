import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * A simulated log with a stated truth, shaped as offer logs of loan and quote processes are (issue 31): the case is
 * one offer, several offers share one application (case:app), earlier offers are withdrawn when a new one replaces
 * them, an offer not answered is cancelled by a system account after exactly 30 days, the system writes two records
 * for one step a second apart, an event attribute restates the activity ('kind'), and two case attributes encode
 * the ending (a score computed only for accepted offers, a flag written when the customer picked the offer), and a
 * few offers go out by another channel instead of the usual one.
 * Names are opaque codes when `hidden`, so no claim may rest on words.
 */
export interface OfferTruth {
  applications: number;
  offers: number;
  /** Applications with at least one accepted offer. */
  acceptedApplications: number;
  /** Offers cancelled while a sibling offer of their application was accepted. */
  replaced: number;
  /** Offers cancelled by the system after 30 days (sent the usual way). */
  timedOut: number;
  /** Offers sent by the other channel. */
  online: number;
}

export const OFFER_NAMES = { create: 'Create Offer', created: 'Offer Created', sent: 'Offer Sent', sentOnline: 'Offer Sent Online', returned: 'Offer Returned', accepted: 'Offer Accepted', refused: 'Offer Refused', cancelled: 'Offer Cancelled' } as const;
const HIDDEN: Record<keyof typeof OFFER_NAMES, string> = { create: 'A1', created: 'A2', sent: 'A3', sentOnline: 'A8', returned: 'A4', accepted: 'A5', refused: 'A6', cancelled: 'A7' };

export function offerLog(options: { applications?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: OfferTruth; names: Record<keyof typeof OFFER_NAMES, string> } {
  const n = options.applications ?? 600;
  // The simulator's seeded generator: the shape is the same on every run.
  const rng = new Rng(options.seed ?? 7);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : OFFER_NAMES;
  const H = 3_600_000;
  const events: WireEvent[] = [];
  const truth: OfferTruth = { applications: n, offers: 0, acceptedApplications: 0, replaced: 0, timedOut: 0, online: 0 };
  const clerks = ['u02', 'u03', 'u04', 'u05', 'u06', 'u07'];
  const start = Date.UTC(2025, 0, 6, 8);
  for (let a = 0; a < n; a++) {
    const app = `app-${1000 + a}`;
    const offers = r() < 0.65 ? 1 : r() < 0.7 ? 2 : 3;
    let t = start + a * 5 * H + Math.floor(r() * H);
    const ends: string[] = [];
    for (let o = 0; o < offers; o++) {
      const id = `${app}-o${o}`;
      truth.offers++;
      const clerk = clerks[Math.floor(r() * clerks.length)]!;
      const out: [keyof typeof OFFER_NAMES, number, string][] = [];
      const at = (k: keyof typeof OFFER_NAMES, time: number, who: string) => out.push([k, time, who]);
      at('create', t, clerk);
      // The system records the offer a second after the clerk creates it: one step, two records.
      at('created', t + 1000, clerk);
      t += 1000 + Math.floor((5 + r() * 30) * 60_000);
      // A few offers go out by another channel, in place of the usual sending.
      const online = r() < 0.04;
      at(online ? 'sentOnline' : 'sent', t, clerk);
      if (online) truth.online++;
      const last = o === offers - 1;
      let end: keyof typeof OFFER_NAMES;
      if (!last) {
        // Replaced by the next offer some days later: the clerk withdraws this one.
        t += Math.floor((1 + r() * 5) * 24 * H);
        end = 'cancelled';
        at(end, t, clerk);
        t += Math.floor(r() * 10 * 60_000);
      } else if (r() < 0.25) {
        // Never answered: the system account cancels it after 30 days, to the minute.
        t += 30 * 24 * H + Math.floor(r() * 20 * 60_000);
        end = 'cancelled';
        at(end, t, 'u01');
        if (!online) truth.timedOut++;
      } else {
        t += Math.floor((1 + r() * 14) * 24 * H);
        at('returned', t, clerk);
        t += Math.floor((0.5 + r() * 48) * H);
        end = r() < 0.75 ? 'accepted' : 'refused';
        at(end, t, clerks[Math.floor(r() * clerks.length)]!);
      }
      ends.push(end);
      const accepted = end === 'accepted';
      // Written when the offer closed, stamped on every event: a score computed only for accepted offers, and the
      // customer's pick (never false for an accepted one).
      const score = accepted ? 400 + Math.floor(r() * 600) : 0;
      const selected = accepted || r() < 0.3;
      out.forEach(([k, time, who], i) =>
        events.push({
          caseId: id,
          eventId: `${id}-${i}`,
          activity: names[k],
          timestamp: new Date(time).toISOString(),
          resource: who,
          attributes: { 'case:app': app, 'case:score': score, 'case:selected': selected, kind: k === 'create' ? 'created' : 'statechange', amount: 5000 + Math.floor(r() * 20) * 1000 },
        }),
      );
    }
    if (ends.includes('accepted')) {
      truth.acceptedApplications++;
      truth.replaced += ends.filter((e) => e === 'cancelled').length - (ends[ends.length - 1] === 'cancelled' ? 1 : 0);
    }
  }
  return { events, truth, names };
}
