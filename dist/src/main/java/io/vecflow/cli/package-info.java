/**
 * The {@code vecflow} command line (picocli): one command class per verb ({@code demo}, {@code
 * collector}, {@code dataplane}, {@code hsflowd}, {@code ctl}, {@code decode}, {@code psample}, {@code lab}), the
 * demo that runs the whole chain on a capture, and what the commands share (capture loading, shutdown, pcap output).
 *
 * <p>Depends on every product module; nothing depends on it.
 */
package io.vecflow.cli;
