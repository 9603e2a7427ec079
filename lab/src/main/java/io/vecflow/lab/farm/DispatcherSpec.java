package io.vecflow.lab.farm;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import java.util.Locale;

/**
 * A dispatcher by name, as the lab's {@code --dispatchers} option and its results spell it:
 * <ul>
 *   <li>{@code random} — uniformly random server (the analytical Maglev of docs/load-balancing.md §5);</li>
 *   <li>{@code maglev} — vecflow's {@link MaglevTable} over the connection's 5-tuple hash;</li>
 *   <li>{@code jsq2}, {@code jsqD} — JSQ(d); {@code jsq} — full join-the-shortest-queue (bounds);</li>
 *   <li>{@code srC} (C = 1..64) — SRLB with static threshold c: vecflow's SRLB candidate table (2 choices) and
 *       static-threshold acceptance policy on each server's busy workers;</li>
 *   <li>{@code srdyn} — the same table with vecflow's dynamic-threshold policy (one instance per server);</li>
 *   <li>{@code srmodelC} — the mean-field model: 2 independent uniform candidates, SR_c (cross-check of §5).</li>
 * </ul>
 *
 * @param name the spelling above
 */
public record DispatcherSpec(String name) {
    /**
     * @throws IllegalArgumentException naming the text if it is not one of the forms above
     */
    public DispatcherSpec {
        name = name.trim().toLowerCase(Locale.ROOT);
        if (!valid(name)) {
            throw new IllegalArgumentException("dispatcher '" + name
                    + "': want random, maglev, jsq, jsqD, srC (C = 1..64), srdyn or srmodelC");
        }
    }

    private static boolean valid(String n) {
        return switch (n) {
            case "random", "maglev", "jsq", "srdyn" -> true;
            default -> (n.matches("jsq[1-9][0-9]{0,3}")) || (n.matches("sr[1-9][0-9]?") && c(n, 2) <= 64)
                    || (n.matches("srmodel[1-9][0-9]?") && c(n, 7) <= 64);
        };
    }

    private static int c(String n, int from) {
        return Integer.parseInt(n.substring(from));
    }

    /** @return true for the SRLB family (srC, srdyn, srmodelC), whose first-choice share is meaningful */
    public boolean isSrlb() {
        return name.startsWith("sr");
    }

    /** @return the static threshold of {@code srC}/{@code srmodelC}, or 0 */
    public int threshold() {
        if (name.matches("sr[0-9]+")) {
            return c(name, 2);
        }
        if (name.startsWith("srmodel")) {
            return c(name, 7);
        }
        return 0;
    }

    /**
     * Builds a fresh dispatcher (per run: SRLB's dynamic policy is stateful).
     *
     * @param servers N
     * @param chtSize SRLB candidate-table buckets (power of two)
     */
    public Dispatcher create(int servers, int chtSize) {
        return switch (name) {
            case "random" -> Dispatchers.random();
            case "maglev" -> Dispatchers.maglev(servers);
            case "jsq" -> Dispatchers.jsq(Integer.MAX_VALUE);
            case "srdyn" -> SrlbDispatchers.dynamic(servers, chtSize);
            default -> {
                if (name.startsWith("jsq")) {
                    yield Dispatchers.jsq(c(name, 3));
                }
                if (name.startsWith("srmodel")) {
                    yield SrlbDispatcher.model(servers, c(name, 7));
                }
                yield SrlbDispatchers.staticThreshold(servers, chtSize, c(name, 2));
            }
        };
    }

    /**
     * The default candidate-table size for N servers: the smallest power of two ≥ 64·N, at least 2^16, at most
     * 2^20. Why so large (SRLB's own default is 256): the table gives every server about the same number of slots in
     * total, but its split between first and second choice varies — at N = 100 the most-loaded server holds +13 % of
     * the average second-choice slots with 8192 buckets, +6 % with 65536 — and SR_c with a small c sends most
     * connections to the second candidate (90 % for SR_1 at ρ = 0.9), so that imbalance becomes server load.
     * With 256 buckets SR_1 at ρ = 0.9 overloads servers outright (see the lab's CHT-size results).
     */
    public static int defaultChtSize(int servers) {
        int s = Integer.highestOneBit(Math.max(1, 64 * servers - 1)) << 1;
        return Math.min(Math.max(s, 1 << 16), 1 << 20);
    }

    @Override
    public String toString() {
        return name;
    }
}
