// The event store behind resumable Streamable HTTP streams: one per session, in memory.
//
// The SDK's transports give an SSE event an id only when an EventStore is configured, and answer
// `GET` + `Last-Event-ID` by asking the store to replay. This store never parses its own ids (the
// SDK v1 example store splits ids on `_`, and stream ids such as `_GET_stream` contain `_`, so it
// replays the wrong stream): every id is a key in a map that says which stream it belongs to.
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

export interface StoredEvent {
  id: EventId;
  streamId: StreamId;
  /** `{}` for a priming event (an id with empty data), which is never replayed. */
  message: JSONRPCMessage;
}

export class MemoryEventStore implements EventStore {
  /** Every event in the order it was stored. */
  readonly events: StoredEvent[] = [];
  private readonly indexById = new Map<EventId, number>();

  /**
   * Ids are `<stream id>:<n>`, with `n` counting every event of the session from 1: unique across the
   * session's streams (2025-03-26 transports, Resumability) and naming the stream they came from
   * (2025-11-25: event ids SHOULD identify the originating stream). They are looked up, never parsed.
   */
  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}:${this.events.length + 1}`;
    this.indexById.set(id, this.events.length);
    this.events.push({ id, streamId, message });
    return id;
  }

  /** The stream an id belongs to; undefined for an id this session never issued (the transport answers 400). */
  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const index = this.indexById.get(eventId);
    return index === undefined ? undefined : this.events[index]!.streamId;
  }

  /**
   * Sends, in order, every event stored after `lastEventId` on the same stream (only that stream:
   * 2025-03-26 transports, Resumability), skipping priming events, whose empty data is not a message.
   * Events stored while the replay is under way are sent too.
   */
  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const index = this.indexById.get(lastEventId);
    if (index === undefined) throw new Error(`unknown event id ${lastEventId}`);
    const { streamId } = this.events[index]!;
    for (let next = index + 1; next < this.events.length; next++) {
      const event = this.events[next]!;
      if (event.streamId === streamId && !isPriming(event.message)) await send(event.id, event.message);
    }
    return streamId;
  }
}

function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}
