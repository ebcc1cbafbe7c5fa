import { attemptDelivery } from '../../../src/routes/attempt-delivery';
import { DeliveryError } from '../../../src/routes/delivery-error';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';
import type { FiguresAttempt, RouteFiguresWriter } from '../../../src/routes/route-figures';
import { routeEvent, silentLogger } from './support/route-events';

describe('route figures: failure texts', () => {
  it("keep no personal value of the event, as the history's attempts do", async () => {
    const [route] = parseRoutesFile(
      'routes: [{ name: crm, to: { http: { url: "http://127.0.0.1:9/in" } } }]',
      {},
    ).routes;
    if (route === undefined) throw new Error('no route');
    const counted: FiguresAttempt[] = [];
    const figures: RouteFiguresWriter = {
      attempt: (_route, attempt) => counted.push(attempt),
      flush: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const event = routeEvent({ item_loan: { loan_id: '234001', user_id: 'patron-4711' } });
    const destination = {
      kind: 'http',
      target: 'POST http://127.0.0.1:9/in',
      // A receiver that quotes the patron back in its refusal.
      deliver: () =>
        Promise.reject(
          new DeliveryError('refused: user patron-4711 unknown', { retryable: false }),
        ),
      close: () => Promise.resolve(),
    };

    const outcome = await attemptDelivery(
      { route, destination, logger: silentLogger, figures },
      event,
      { number: 1, of: 3 },
    );

    expect(outcome.kind).toBe('failed');
    expect(counted).toHaveLength(1);
    expect(counted[0]?.error).toBeDefined();
    expect(counted[0]?.error).not.toContain('patron-4711');
    expect(counted[0]).toMatchObject({ outcome: 'failed', number: 1, eventId: event.id });
  });
});
