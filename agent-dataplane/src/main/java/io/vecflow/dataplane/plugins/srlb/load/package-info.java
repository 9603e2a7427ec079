/**
 * SRLB's load sources (Apache and nginx status, cgroup CPU, settable) and accept policies (static and
 * dynamic thresholds).
 *
 * <p>Depends on no other dataplane package.
 */
package io.vecflow.dataplane.plugins.srlb.load;
