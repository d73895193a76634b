/**
 * gRPC settings a client connection needs to read everything Temporal may hold. `@temporalio/client` 1.23 sets
 * its 128 MB receive limit under a key grpc-js does not read (`max_receive_message_length`, without the
 * `grpc.` prefix), so a connection left at the defaults gives up on any answer over 4 MB: a call with a large
 * prompt and a few attempts has a history page larger than that (`RESOURCE_EXHAUSTED: Received message larger
 * than max`). Pass these as `channelArgs` to `Connection.connect`.
 */
export const LARGE_MESSAGE_CHANNEL_ARGS = Object.freeze({
  // Temporal's own history limit is 50 MB; one page of it can hold all of it.
  'grpc.max_receive_message_length': 128 * 1024 * 1024,
});
