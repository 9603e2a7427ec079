/**
 * The collector: its configuration ({@link io.vecflow.collector.CollectorConfig}, the YAML file and the command
 * line's settings) and its lifecycle ({@link io.vecflow.collector.Collector}: one binary in three roles, inlet, outlet
 * or all, wiring the inlet, the outlet, the decoder and the sinks, and closing them in order).
 *
 * <p>Packages depend one way: {@code schema} &lt; {@code sink} (the sink contracts) &lt; {@code decode} &lt;
 * {@code sink.clickhouse}, {@code sink.kafka}, {@code sink.json}, {@code sink.forward} &lt; {@code inlet},
 * {@code outlet} (neither knows the other) &lt; this package &lt; {@code metrics}. This package may use every package
 * but {@code metrics}.
 */
package io.vecflow.collector;
