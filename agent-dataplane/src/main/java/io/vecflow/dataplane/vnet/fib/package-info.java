/**
 * Forwarding state: the 16-8-8 IPv4 trie, the per-length IPv6 hash, adjacencies and static neighbours, built
 * immutable ({@link io.vecflow.dataplane.vnet.fib.Forwarding}) and swapped atomically.
 *
 * <p>Depends on no other dataplane package.
 */
package io.vecflow.dataplane.vnet.fib;
