/**
 * The SRLB server agent (6LB): the {@code srlb-sa6} node and its handoff input node, the agent's state and
 * control, and its plugin.
 *
 * <p>May depend on {@code graph}, {@code vnet}, {@code sflow}, {@code plugins.lb} and its subpackages, and
 * {@code plugins.srlb.state}/{@code plugins.srlb.load}.
 */
package io.vecflow.dataplane.plugins.srlb;
