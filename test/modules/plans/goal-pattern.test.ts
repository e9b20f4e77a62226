import fc from 'fast-check';
import {
  goalPattern,
  goalPatternScore,
  patternsUnify,
  unifiablePrefixes,
} from '../../../src/modules/plans/plan.goal-pattern';

describe('goalPattern', () => {
  it.each([
    ['Create a shipment for facility HAN', 'create_*_for_facility_*'],
    ['Create a shipment for facility BER', 'create_*_for_facility_*'],
    ['Create shipment for facility', 'create_shipment_for_facility'],
    ['List orders in Berlin', 'list_orders_in_*'],
    ['Create an invoice for Acme Corp', 'create_*_for_*'],
    ['List all facilities', 'list_facilities'],
    ['Update the status of order 12345', 'update_status_of_order_*'],
    ['Cancel shipment 690b1f2e9c1d4a7b8e3f0a12', 'cancel_shipment_*'],
    ['Send an email to john.doe@example.com', 'send_*_to_*'],
    ['Assign driver Maria Lopez to route R-17', 'assign_driver_*_to_route_*'],
    ['Get weather in New York for 3 days', 'get_weather_in_*_for_*_days'],
    ["Create a user named 'Jane Doe'", 'create_*_named_*'],
    ['Please show the inventory of warehouse W12.', 'show_inventory_of_warehouse_*'],
    ['Schedule a meeting with Bob on 2024-05-01', 'schedule_*_with_*_on_*'],
    ['Delete facility HAN and facility BER', 'delete_facility_*_and_facility_*'],
    ['Find flights from SFO to JFK', 'find_flights_from_*_to_*'],
    ["Book a table for two at Luigi's", 'book_*_for_*_at_*'],
    ['Generate monthly report for March 2024', 'generate_monthly_report_for_*'],
    ['Move 50 units of SKU-42 from warehouse A to warehouse B', 'move_*_units_of_*_from_warehouse_*_to_warehouse_*'],
    ['Create Shipment For Facility HAN', 'create_shipment_for_facility_*'],
    ['Retry failed payment 8842 for customer C-1009', 'retry_failed_payment_*_for_customer_*'],
    ['Compare prices of iPhone 15 and Pixel 8', 'compare_prices_of_*_and_*'],
    ['Summarize the last 10 messages in session abc123', 'summarize_last_*_messages_in_session_*'],
    ['Resolve ticket #4521', 'resolve_ticket_*'],
    ['Translate this document into French', 'translate_document_into_*'],
    ['Use "https://api.example.com/v2" as the endpoint', 'use_*_as_endpoint'],
    ['A new user must be created for tenant 7', '*_must_be_created_for_tenant_*'],
    ['  create   a   follow-up task   ', 'create_*'],
    ['HAN', '*'],
    ['', ''],
  ])('%j → %s', (goal, expected) => {
    expect(goalPattern(goal)).toBe(expected);
  });

  it('is deterministic: the same goal gives the same template every time', () => {
    const goal = 'Create a shipment for facility HAN with priority 2';
    const first = goalPattern(goal);
    for (let i = 0; i < 5; i++) expect(goalPattern(goal)).toBe(first);
  });

  it("trims the punctuation at a word's ends as the pattern /^[^…]+|[^…]+$/ did (random words)", () => {
    const edges = /^[^\p{L}\p{N}\uE000]+|[^\p{L}\p{N}\uE000]+$/gu;
    const unit = fc.constantFrom('a', 'B', '7', '-', '.', '\u0301', '😀', '𝒜', 'é', '!', '\uE000');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const word = units.join('');
        expect(goalPattern(word)).toBe(goalPattern(word.replace(edges, '')));
      }),
    );
  });

  it('reads a word with 200,000 marks or dashes inside in linear time', () => {
    for (const inner of ['\u0301', '-']) {
      const word = `a${inner.repeat(200_000)}b`;
      expect(goalPattern(`Plan ${word} now`)).toBe(`plan_${word}_now`);
    }
  });
});

describe('goal pattern matching', () => {
  it.each([
    ['create_shipment_for_facility', 'create_*_for_facility_*', true],
    ['create_*_for_facility_*', 'create_shipment_for_facility_*', true],
    ['create_*_for_facility_*', 'create_*_for_facility_*', true],
    ['list_orders_in_*', 'create_*_for_facility_*', false],
    ['create_*_for_facility_*', 'create_*_for_customer_*', false],
    ['*', 'anything_at_all', true],
    ['create_*', 'create', true],
    ['create_invoice_for_facility', 'create_shipment_for_facility_*', false],
  ])('%s and %s unify: %s', (a, b, expected) => {
    expect(patternsUnify(a, b)).toBe(expected);
    expect(patternsUnify(b, a)).toBe(expected);
  });

  it('unifies as the definition says: each * stands for zero or more words (random templates)', () => {
    // The definition as a table: covers[i][j] when general[0..i) covers specific[0..j).
    const instanceOf = (specific: string[], general: string[]): boolean => {
      const covers = Array.from({ length: general.length + 1 }, () => new Array(specific.length + 1).fill(false));
      covers[0][0] = true;
      for (let i = 0; i < general.length; i++) {
        for (let j = 0; j <= specific.length; j++) {
          if (!covers[i][j]) continue;
          if (general[i] === '*') {
            for (let k = j; k <= specific.length; k++) covers[i + 1][k] = true;
          } else if (general[i] === specific[j]) covers[i + 1][j + 1] = true;
        }
      }
      return covers[general.length][specific.length];
    };
    const template = fc.array(fc.constantFrom('a', 'b', '*'), { maxLength: 9 });
    fc.assert(
      fc.property(template, template, (a, b) => {
        expect(patternsUnify(a.join('_'), b.join('_'))).toBe(instanceOf(a, b) || instanceOf(b, a));
      }),
      { numRuns: 3000 },
    );
  });

  it('unifies templates of 100,000 words', () => {
    const words = Array.from({ length: 100_000 }, (_, i) => (i % 7 ? 'a' : 'b'));
    const general = ['*', ...words.slice(1, 50_000), '*', 'b', '*', ...words.slice(-3)].join('_');
    expect(patternsUnify(words.join('_'), general)).toBe(true);
    expect(patternsUnify(words.join('_'), `${general}_c`)).toBe(false);
  });

  it('scores a unifying template 1 and a template that only shares words half their Dice overlap', () => {
    expect(goalPatternScore('create_shipment_for_facility', 'create_*_for_facility_*')).toBe(1);
    // literal words: {create, for, facility} and {create, for, customer}: Dice = 2·2/6
    expect(goalPatternScore('create_*_for_facility_*', 'create_*_for_customer_*')).toBeCloseTo((2 * 2) / 6 / 2, 10);
    expect(goalPatternScore('list_orders_in_*', 'create_*_for_facility_*')).toBe(0);
  });

  it('offers index prefixes that find every template able to unify', () => {
    expect(unifiablePrefixes('create_*_for_facility_*').map(String)).toEqual(['/^create(_|$)/', '/^\\*/']);
    expect(unifiablePrefixes('*_must_be_created')).toEqual([]);
    const [verb, star] = unifiablePrefixes('create_shipment');
    expect(verb.test('create_*_for_facility_*')).toBe(true);
    expect(verb.test('created_*')).toBe(false);
    expect(star.test('*_for_*')).toBe(true);
  });
});
