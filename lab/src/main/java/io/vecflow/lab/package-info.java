/**
 * The simulations that reuse the real load-balancer code (docs/load-balancing.md §5–§6): the SRLB vs
 * Maglev experiment ({@link io.vecflow.lab.SrlbLab}) over the server farm in {@code farm}, the CLOVE vs ECMP
 * experiment ({@link io.vecflow.lab.CloveLab}) over the fabric in {@code fabric}, their result files and tables
 * (written through {@code out}), and the small helpers they share.
 *
 * <p>Depends on {@code farm}, {@code fabric} and {@code out} only.
 */
package io.vecflow.lab;
