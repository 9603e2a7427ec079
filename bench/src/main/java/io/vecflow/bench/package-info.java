/**
 * JMH benchmarks and the peer-comparison harnesses (bench/README.md): decode, parse, encap, Maglev and
 * graph paths, the pipeline and the agent's throughput against real peers, with the fixtures they share.
 *
 * <p>Depends on the product modules; nothing depends on it.
 */
package io.vecflow.bench;
