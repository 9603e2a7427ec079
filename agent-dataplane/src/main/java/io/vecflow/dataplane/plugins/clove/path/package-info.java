/**
 * CLOVE's pure flowlet and path logic: flowlet tables, ECN/INT path weights, least-utilised path choice,
 * traceroute-style path discovery.
 *
 * <p>Depends on no other dataplane package.
 */
package io.vecflow.dataplane.plugins.clove.path;
