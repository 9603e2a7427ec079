/**
 * The control socket and the CLI words (VPP's): the {@link io.vecflow.dataplane.control.DataplaneControl}
 * contract, the command parser, the server and client and their protocol.
 *
 * <p>May depend on {@code plugins} (the VIP types and table sizes) and below; never on the root package.
 */
package io.vecflow.dataplane.control;
