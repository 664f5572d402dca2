// Pagination (server/utilities/pagination › Implementation Guidelines): the client lists tools from a server that pages
// them (personality paged-tools, one tool a page, servers/personalities/paged-tools.ts) and must hand its caller every
// page. Four ways a server pages legally: opaque cursors that differ (pagination/pages), an empty-string cursor
// (pagination/empty-cursor), one cursor repeated while the server keeps the position (pagination/repeated-cursor), and
// cursors that belong to their session (pagination/cursor-per-session). What the client returned is the adapter's
// listTools(): the client's own listing, as its caller gets it.
import { isModern, S, S_AND_M, type Revision } from '../../protocol/revisions.ts';
import { INVALID_CURSOR_NOTE, PAGE_NOTE, pagedToolName, pagedTools, PAGES, type PagingMode } from '../../servers/personalities/paged-tools.ts';
import type { SentMessage } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { checkInTime } from '../deadlines.ts';
import { ClientHung } from '../outcome.ts';
import type { Check, DoctoredProof, Evidence, Scenario, ScenarioContext, SpecRef } from '../scenario.ts';
import { pagination } from '../spec.ts';
import { answerTo, label, labels, requests, sessionKey } from '../wire.ts';

/** One tools/list the client sent, with the cursor it carried and the nextCursor its answer named. */
interface Listing {
  request: SentMessage;
  session: string;
  cursor: unknown;
  /** Absent: the answer named none (the end), or there was no result. */
  next: unknown;
  answered: boolean;
}

function listingsOf(evidence: Evidence): Listing[] {
  return requests(evidence.exchanges, 'tools/list').map((request) => {
    const result = answerTo(evidence.exchanges, request)?.result;
    return {
      request,
      // 2026-07-28 has no sessions: the pages of a listing are requests of their own, judged as one sequence.
      session: isModern(evidence.revision) ? 'modern' : sessionKey(evidence.exchanges, request.exchange),
      cursor: request.message.params?.['cursor'],
      next: result?.['nextCursor'],
      answered: result !== undefined,
    };
  });
}

const showCursor = (cursor: unknown) => (cursor === undefined ? 'no cursor' : `cursor ${JSON.stringify(cursor)}`);

/** What each listTools() the script ran returned: tool names, or the error it ended in. */
type Returned = string[] | { error: string };

async function listAndObserve({ connect, bounded, observe }: Pick<ScenarioContext, 'connect' | 'bounded' | 'observe'>, listings: number): Promise<void> {
  const returned: Returned[] = [];
  try {
    for (let i = 0; i < listings; i++) {
      const client = await connect();
      try {
        returned.push((await bounded(client.listTools(), 'tools/list')).map((tool) => tool.name));
      } catch (error) {
        returned.push({ error: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        await bounded(client.close(), 'close');
      }
    }
  } finally {
    observe('listings', returned);
  }
}

/** The rule a scenario is about, at a revision: its one mode-specific check's citation. */
type RuleAt = (revision: Revision) => SpecRef;

/** Every listTools() returned the tool of every page, in any order. */
function everyToolListed(evidence: Evidence, mode: PagingMode, rule: SpecRef): Check {
  const returned = (evidence.observed['listings'] ?? []) as Returned[];
  const expected = Array.from({ length: PAGES[mode] }, (_, i) => pagedToolName(i + 1));
  const short = returned.flatMap((listing, i) => {
    if (!Array.isArray(listing)) return [`listing ${i + 1} failed: ${listing.error}`];
    const missing = expected.filter((name) => !listing.includes(name));
    return missing.length === 0 ? [] : [`listing ${i + 1} returned ${JSON.stringify(listing)}, without ${missing.join(', ')}`];
  });
  const ok = returned.length > 0 && short.length === 0;
  return check(
    'every-tool-listed',
    rule,
    ok,
    returned.length === 0 ? 'no listTools() returned' : ok ? `each of ${returned.length} listings returned the tools of all ${expected.length} pages` : short.join('; '),
  );
}

/** After an answer without nextCursor, the session's next tools/list (if any) starts again without a cursor. */
function stopsAtMissingCursor(evidence: Evidence, listings: readonly Listing[]): Check {
  const beyond = listings.filter((listing, i) => {
    if (listing.cursor === undefined) return false;
    const previous = listings.slice(0, i).filter((other) => other.session === listing.session).at(-1);
    return previous !== undefined && previous.answered && previous.next === undefined;
  });
  return check(
    'stops-at-missing-cursor',
    pagination(evidence.revision, 'clients SHOULD treat a missing nextCursor as the end of results', 'SHOULD'),
    beyond.length === 0,
    beyond.length === 0
      ? 'no tools/list followed a page without nextCursor with a cursor'
      : beyond.map((listing) => `${label(listing.request.exchange)} with ${showCursor(listing.cursor)} after a page without nextCursor`).join('; '),
    beyond.map((listing) => listing.request.exchange),
  );
}

/** Every cursor a tools/list carried is one the server named in an earlier answer of the same session, unchanged. */
function cursorsFromTheirSession(name: string, rule: SpecRef, listings: readonly Listing[]): Check {
  const foreign = listings.filter((listing, i) => {
    if (listing.cursor === undefined) return false;
    return !listings.slice(0, i).some((earlier) => earlier.session === listing.session && earlier.next === listing.cursor);
  });
  return check(
    name,
    rule,
    foreign.length === 0,
    foreign.length === 0
      ? `every cursor sent (${listings.filter((l) => l.cursor !== undefined).length}) was one the server named earlier in the same session`
      : foreign.map((listing) => `${label(listing.request.exchange)} carried ${showCursor(listing.cursor)}, which no earlier answer of its session named`).join('; '),
    foreign.map((listing) => listing.request.exchange),
  );
}

const opaque = (revision: Revision, section: string): SpecRef => pagination(revision, `clients MUST treat cursors as opaque tokens: ${section}`, 'MUST');

interface PagingScenario {
  id: string;
  title: string;
  mode: PagingMode;
  revisions: readonly Revision[];
  listings: number;
  /** The citation of every-tool-listed: what losing a page breaks. */
  everyTool: RuleAt;
  /** The scenario's own checks besides every-tool-listed and stops-at-missing-cursor. */
  own(evidence: Evidence, listings: readonly Listing[]): Check[];
  doctored?: readonly DoctoredProof[];
}

function pagingScenario(definition: PagingScenario): Scenario {
  const served = (revision: Revision) => pagination(revision, `a server that pages tools/list (${definition.mode})`, 'SHOULD');
  return {
    id: definition.id,
    title: definition.title,
    revisions: definition.revisions,
    requires: [],
    source: { spec: definition.everyTool(definition.revisions[0]!) },
    setup: () => ({ server: { personalities: [pagedTools(definition.mode)] }, state: undefined }),
    run: (context) => listAndObserve(context, definition.listings),
    judge(evidence) {
      const listings = listingsOf(evidence);
      const firstPages = evidence.exchanges.filter((exchange) => exchange.notes.includes(`${PAGE_NOTE} 1/${PAGES[definition.mode]}`));
      return [
        // The rules are about pages the server served: a client that never listed showed nothing of them.
        precondition(
          'first-page-served',
          served(evidence.revision),
          firstPages.length > 0,
          firstPages.length > 0 ? `the paging server answered ${labels(firstPages)}` : `no tools/list was answered with a first page (${labels(evidence.exchanges)})`,
          firstPages.slice(0, 1),
          evidence.clientError !== undefined && listings.length === 0 ? { by: 'client' } : {},
        ),
        clientCompleted(evidence, definition.everyTool(evidence.revision)),
        everyToolListed(evidence, definition.mode, definition.everyTool(evidence.revision)),
        stopsAtMissingCursor(evidence, listings),
        ...definition.own(evidence, listings),
      ];
    },
    doctored: [
      {
        check: 'first-page-served',
        unmet: true,
        how: 'the paging personality’s notes removed (a server that did not page)',
        doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => !note.startsWith(PAGE_NOTE)) })) }),
      },
      {
        check: 'stops-at-missing-cursor',
        how: 'the last tools/list sent again with a cursor after the page without one',
        doctor: (e) => {
          const last = [...e.exchanges].reverse().find((x) => x.requestMessages.some((m) => m.method === 'tools/list'))!;
          const again = { ...last, seq: e.exchanges.length + 1, requestMessages: last.requestMessages.map((m) => ({ ...m, id: 999, params: { ...m.params, cursor: 'again' } })), responseMessages: [] };
          return { ...e, exchanges: [...e.exchanges, again] };
        },
      },
      ...(definition.doctored ?? []),
    ],
  };
}

/** A record whose tools/list requests' cursors are rewritten by `rewrite` (given the cursor, the request's index among them). */
const rewriteCursors =
  (rewrite: (cursor: unknown, index: number, e: Evidence) => unknown) =>
  (e: Evidence): Evidence => {
    let index = -1;
    return {
      ...e,
      exchanges: e.exchanges.map((x) => {
        if (!x.requestMessages.some((m) => m.method === 'tools/list')) return x;
        index += 1;
        const at = index;
        return {
          ...x,
          requestMessages: x.requestMessages.map((m) => {
            if (m.method !== 'tools/list') return m;
            const cursor = rewrite(m.params?.['cursor'], at, e);
            const { cursor: _dropped, ...rest } = m.params ?? {};
            return { ...m, params: cursor === undefined ? rest : { ...rest, cursor } };
          }),
        };
      }),
    };
  };

export const pages = pagingScenario({
  id: 'pagination/pages',
  title: 'tools/list in three pages with opaque cursors: the client asks for each page with the cursor it was given, stops at the page without nextCursor, and returns every tool',
  mode: 'plain',
  revisions: S_AND_M,
  listings: 1,
  everyTool: (revision) => pagination(revision, 'clients SHOULD support paginated flows: every page reaches the caller', 'SHOULD'),
  own: (evidence, listings) => [cursorsFromTheirSession('cursor-sent-unchanged', opaque(evidence.revision, 'no parsing or modifying'), listings)],
  doctored: [{ check: 'cursor-sent-unchanged', how: 'the cursor of page 2 modified (c2 → c2x)', doctor: rewriteCursors((cursor) => (cursor === 'c2' ? 'c2x' : cursor)) }],
});

// 2026-07-28 says it outright (an empty string is a valid cursor and MUST NOT be treated as the end); before, the
// cursor is an opaque token all the same, about whose format the client MUST make no assumption: a SHOULD there, as
// the reading of a MUST rather than its words.
const emptyIsACursor = (revision: Revision): SpecRef =>
  isModern(revision)
    ? pagination(revision, 'an empty string is a valid cursor and MUST NOT be treated as the end of results', 'MUST')
    : pagination(revision, 'cursors are opaque tokens (MUST: no assumptions about their format): an empty nextCursor is not the end', 'SHOULD');

export const emptyCursor = pagingScenario({
  id: 'pagination/empty-cursor',
  title: 'tools/list whose first page names nextCursor "": the client asks for page 2 with the empty cursor and returns both tools',
  mode: 'empty-cursor',
  revisions: S_AND_M,
  listings: 1,
  everyTool: emptyIsACursor,
  own: (evidence, listings) => {
    const followed = listings.filter((listing) => listing.cursor === '');
    const offered = listings.filter((listing) => listing.next === '');
    return [
      check(
        'empty-cursor-followed',
        emptyIsACursor(evidence.revision),
        offered.length > 0 && followed.length > 0,
        offered.length === 0
          ? 'no answer named the empty cursor'
          : followed.length > 0
            ? `the empty cursor was followed: ${labels(followed.map((l) => l.request.exchange))}`
            : `the client took nextCursor "" (${labels(offered.map((l) => l.request.exchange))}) for the end: no tools/list carried it`,
        [...offered, ...followed].map((l) => l.request.exchange),
      ),
    ];
  },
});

export const repeatedCursor = pagingScenario({
  id: 'pagination/repeated-cursor',
  title: 'tools/list in three pages whose first two both name nextCursor "more" (the server keeps the position): the client follows it each time and returns every tool',
  mode: 'repeated-cursor',
  revisions: S_AND_M,
  listings: 1,
  everyTool: (revision) => opaque(revision, 'no determination from a cursor’s value (a repeated cursor is followed)'),
  own: (evidence, listings) => {
    const withMore = listings.filter((listing) => listing.cursor === 'more');
    const lastServed = evidence.exchanges.filter((x) => x.notes.includes(`${PAGE_NOTE} ${PAGES['repeated-cursor']}/${PAGES['repeated-cursor']}`));
    return [
      check(
        'repeated-cursor-followed',
        opaque(evidence.revision, 'no determination from a cursor’s value (a repeated cursor is followed)'),
        lastServed.length > 0,
        lastServed.length > 0
          ? `the client followed "more" ${withMore.length} times, to the last page (${labels(lastServed)})`
          : `the client followed "more" ${withMore.length} times and never reached the last page (${labels(listings.map((l) => l.request.exchange))})`,
        listings.map((l) => l.request.exchange),
      ),
    ];
  },
});

export const cursorPerSession = pagingScenario({
  id: 'pagination/cursor-per-session',
  title: 'Two sessions one after the other list tools in two pages: each session asks for page 2 only with the cursor its own first page named',
  mode: 'per-session',
  revisions: S,
  listings: 2,
  everyTool: (revision) => pagination(revision, 'clients SHOULD support paginated flows: every page reaches the caller', 'SHOULD'),
  own: (evidence, listings) => {
    const refused = evidence.exchanges.filter((x) => x.notes.includes(INVALID_CURSOR_NOTE));
    return [
      cursorsFromTheirSession('cursor-kept-to-its-session', opaque(evidence.revision, 'do not persist cursors across sessions'), listings),
      check(
        'no-invalid-cursor',
        opaque(evidence.revision, 'do not persist cursors across sessions'),
        refused.length === 0,
        refused.length === 0 ? 'no cursor was refused' : `the server refused the cursor of ${labels(refused)} (-32602)`,
        refused,
      ),
    ];
  },
  doctored: [
    {
      check: 'cursor-kept-to-its-session',
      how: 'the second session’s first tools/list carries the first session’s cursor',
      doctor: (e) => {
        const lists = listingsOf(e);
        const firstCursor = lists.find((l) => typeof l.next === 'string')?.next;
        const firstOfSecond = lists.findIndex((l) => l.session !== lists[0]?.session);
        return rewriteCursors((cursor, index) => (index === firstOfSecond ? firstCursor : cursor))(e);
      },
    },
    {
      check: 'no-invalid-cursor',
      how: 'a tools/list noted as refused for its cursor',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x, i) => (i === e.exchanges.length - 1 ? { ...x, notes: [...x.notes, INVALID_CURSOR_NOTE] } : x)) }),
    },
  ],
});

/** What the one listTools() of pagination/endless came to. */
type Ending = { state: 'resolved'; tools: number } | { state: 'rejected'; error: string } | { state: 'hung'; error: string };

// A broken server whose pages never end: the listing is the client's to end (a convention: every request is bounded,
// lifecycle › Timeouts, and a missing nextCursor, never a count of pages, is the end). It ends in an error: a list
// returned while the last page still named a nextCursor is pages silently dropped, which the caller cannot tell from
// the whole list.
const endlessRule = (revision: Revision, section: string): SpecRef => pagination(revision, `a server that never stops paging: ${section} (convention)`, 'SHOULD');

export const endless = {
  id: 'pagination/endless',
  title: 'tools/list whose every page names a next one: the listing ends, in an error rather than the pages so far returned as the whole list',
  revisions: S_AND_M,
  requires: [],
  source: { spec: endlessRule(S_AND_M[0], 'the listing ends in an error') },
  setup: () => ({ server: { personalities: [pagedTools('endless')] }, state: undefined }),
  async run({ connect, bounded, observe }) {
    const client = await connect();
    const ending: Ending = await bounded(client.listTools(), 'tools/list').then(
      (tools): Ending => ({ state: 'resolved', tools: tools.length }),
      (error: unknown): Ending => ({ state: error instanceof ClientHung ? 'hung' : 'rejected', error: error instanceof Error ? error.message : String(error) }),
    );
    observe('ending', ending);
    await bounded(client.close(), 'close');
  },
  judge(evidence) {
    const ending = evidence.observed['ending'] as Ending | undefined;
    const listings = listingsOf(evidence);
    const firstPages = evidence.exchanges.filter((exchange) => exchange.notes.includes(`${PAGE_NOTE} 1/${PAGES.endless}`));
    const asked = `${listings.length} tools/list requests`;
    return [
      precondition(
        'first-page-served',
        endlessRule(evidence.revision, 'the paging server served a first page'),
        firstPages.length > 0,
        firstPages.length > 0 ? `the paging server answered ${labels(firstPages)}` : `no tools/list was answered with a first page (${labels(evidence.exchanges)})`,
        firstPages.slice(0, 1),
        evidence.clientError !== undefined && listings.length === 0 ? { by: 'client' } : {},
      ),
      clientCompleted(evidence, endlessRule(evidence.revision, 'the client lists and closes')),
      checkInTime(
        evidence.time,
        'listing-ends',
        endlessRule(evidence.revision, 'the listing ends within the operation bound, no endless loop'),
        ending === undefined ? false : ending.state === 'hung' ? 'late' : true,
        ending === undefined ? 'the listing never settled' : ending.state === 'hung' ? `${ending.error}, after ${asked}` : `the listing ended (${ending.state}) after ${asked}`,
        listings.slice(-1).map((l) => l.request.exchange),
      ),
      check(
        'no-short-list',
        endlessRule(evidence.revision, 'the listing ends in an error, not the pages so far as the whole list'),
        ending?.state !== 'resolved',
        ending?.state === 'resolved'
          ? `listTools() returned ${ending.tools} tools as the whole list after ${asked}, the last page still naming a nextCursor`
          : ending?.state === 'rejected'
            ? `listTools() failed: ${ending.error}`
            : 'listTools() returned no list',
        listings.slice(-1).map((l) => l.request.exchange),
      ),
    ];
  },
  doctored: [
    {
      check: 'first-page-served',
      unmet: true,
      how: 'the paging personality’s notes removed (a server that did not page)',
      doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((note) => !note.startsWith(PAGE_NOTE)) })) }),
    },
    {
      check: 'listing-ends',
      how: 'the listing still under way when the bound ran out',
      doctor: (e) => ({ ...e, observed: { ...e.observed, ending: { state: 'hung', error: 'tools/list did not settle within the bound' } } }),
    },
  ],
} satisfies Scenario;

export const PAGINATION: readonly Scenario[] = [pages, emptyCursor, repeatedCursor, cursorPerSession, endless];
