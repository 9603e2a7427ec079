/**
 * Drop accounting: the {@link io.vecflow.dataplane.vnet.error.DropReason} table (VPP counter name, sFlow code,
 * Linux reason, devlink trap), the {@code error-drop} node that counts drops per reason and interface, the final
 * {@code drop} node.
 *
 * <p>May depend on {@code graph} only.
 */
package io.vecflow.dataplane.vnet.error;
