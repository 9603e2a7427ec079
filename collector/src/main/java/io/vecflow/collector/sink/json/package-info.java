/**
 * The JSON-lines sink: one JSON object per decoded row to a file or stdout
 * ({@link io.vecflow.collector.sink.json.JsonLinesSink}).
 *
 * <p>May depend on {@code schema}, {@code sink} and {@code decode}.
 */
package io.vecflow.collector.sink.json;
