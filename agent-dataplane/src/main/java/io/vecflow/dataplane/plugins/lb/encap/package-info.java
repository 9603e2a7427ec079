/**
 * The load balancer's pure packet rewrites: GRE, IP-in-IP, SRv6 H.Encaps and the SRLB SRH
 * ({@link io.vecflow.dataplane.plugins.lb.encap.Encap}), their removal ({@code Decap}), ICMP too-big replies.
 *
 * <p>May depend on {@code graph.mem}, {@code plugins.lb.maglev} and {@code plugins.srlb.state} (the SID layout).
 */
package io.vecflow.dataplane.plugins.lb.encap;
