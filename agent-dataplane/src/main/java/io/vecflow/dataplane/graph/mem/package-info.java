/**
 * Memory helpers under the engine: big-endian field access and Internet checksums over
 * {@link java.lang.foreign.MemorySegment}s ({@link io.vecflow.dataplane.graph.mem.Bytes}), huge-page backed tables
 * ({@link io.vecflow.dataplane.graph.mem.HugePageMemory}).
 *
 * <p>Depends on no other dataplane package.
 */
package io.vecflow.dataplane.graph.mem;
