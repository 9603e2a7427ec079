/**
 * A discrete-event server-farm simulation for SRLB vs Maglev (docs/load-balancing.md §5–§6): servers
 * as processor-sharing or Apache-like queues, service-time laws, the dispatchers (random/Maglev, JSQ(d), SRLB on the
 * dataplane's own candidate table and acceptance policies) and the mean-field model they are checked against.
 *
 * <p>Depends on the dataplane's Maglev, flow-hash and SRLB classes only.
 */
package io.vecflow.lab.farm;
