package io.vecflow.lab.farm;

/**
 * SRLB dispatchers on vecflow's data-path classes. Placeholder until {@code io.vecflow.dataplane.lb.srlb} lands:
 * the model's candidates with the static rule.
 */
final class SrlbDispatchers {
    private SrlbDispatchers() {}

    static Dispatcher staticThreshold(int servers, int chtSize, int c) {
        return new SrlbDispatcher("sr" + c, (h, out) -> modelCandidates(servers, h, out),
                (s, busy, rem) -> rem == 0 || busy < c);
    }

    static Dispatcher dynamic(int servers, int chtSize) {
        throw new UnsupportedOperationException("srdyn needs io.vecflow.dataplane.lb.srlb.DynamicThreshold");
    }

    private static int modelCandidates(int servers, long h, int[] out) {
        out[0] = (int) Long.remainderUnsigned(h & 0xFFFF_FFFFL, servers);
        out[1] = (int) Long.remainderUnsigned(h >>> 32, servers);
        return 2;
    }
}
