/**
 * The Redis store (docs/design.md §4): limits' state in Redis, so that every application node makes
 * the same decisions. Build it with {@link dev.ratelimit.redis.RedisStore#builder()}.
 *
 * <h2>How a decision is made</h2>
 * One Lua script per kind of limit (resources next to these classes: {@code rules.lua} for the
 * shared rules, {@code word.lua} or {@code object.lua} for how a decision is assembled, one file
 * per algorithm, {@code state.lua} and a driver) runs on Redis 7 as a function ({@code FCALL},
 * loaded with {@code FUNCTION LOAD} when Redis does not know it), elsewhere (Cluster, older
 * servers) with {@code EVALSHA}, falling back to {@code EVAL} on {@code NOSCRIPT}. It reads Redis {@code TIME} once, reads each key once with
 * {@code GET}, decides every request of the call in order with the same arithmetic as
 * {@code dev.ratelimit.algorithm} (same state, same formulas, same order of operations, same
 * rules for waits), and writes each key once with {@code SET ... PX} at the moment its state is
 * fresh again (or deletes it when it already is). Concurrent requests of one limit share a call.
 * All-or-nothing calls over several limits are one more script over every key, when they share a
 * slot.
 *
 * <h2>Keys and values</h2>
 * {@code prefix:{name:key}} (a hash tag: one slot per name and key), with {@code name:key} longer
 * than 256 UTF-8 bytes replaced by {@code #} and its SHA-256. The value is a string: the value
 * format's version and {@code :} ({@code ValueFormat}, docs/design.md §4.3: a key holding another
 * version is never read, and its requests fail as a store failure), eight hex digits that
 * fingerprint the limit (a name bound to another limit reads old keys as fresh), then the state:
 * for token bucket, GCRA and fixed window {@code =} and three packed doubles (the algorithm's
 * number, the latest time stored and the key's timeline base); for a sliding window
 * the latest time, the newest sub-window and its counts; for a sliding log the latest time and
 * its (time, units) entries; for a quota its period and the units used.
 *
 * <h2>Failures</h2>
 * No answer within the command timeout, a lost connection or a server not ready
 * ({@code LOADING}, {@code BUSY}, {@code READONLY}, ...) fail the call with
 * {@link dev.ratelimit.StoreUnavailableException}, and the limiter applies each limit's failure
 * policy; a script error is an {@link java.lang.IllegalStateException} naming the script.
 *
 * <h2>Load</h2>
 * Many callers at once are not a failure: their requests wait for their turn in the client,
 * coalesced into script calls, and Redis decides every one (a synchronous caller's thread
 * blocks). The command timeout measures Redis alone, from when a call is sent: a call past it
 * fails, and so do the requests waiting behind it, at once, so the failure policy still decides
 * within it when Redis is slow or down. At most {@code maxPending} asynchronous requests (default
 * 10,000) are pending at once; one past that is refused with a
 * {@link java.util.concurrent.RejectedExecutionException}, which is not a store failure.
 */
package dev.ratelimit.redis;
