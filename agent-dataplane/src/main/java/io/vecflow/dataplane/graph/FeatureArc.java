package io.vecflow.dataplane.graph;

import java.util.Arrays;
import java.util.List;

/**
 * A feature arc (VPP's {@code vnet_feature_arc}): an ordered list of optional feature nodes between an arc start and
 * an end node, enabled per interface at run time. A node entering the arc calls {@link #start}; each feature node,
 * when done with a packet, calls {@link #next} with its own position; the packet visits every feature enabled for its
 * interface in order, then the end node.
 *
 * <p>Arcs used by the dataplane: {@code device-input} (feature {@code sflow}; end {@code ethernet-input}; interface =
 * receive ifIndex), {@code ip4-unicast}/{@code ip6-unicast} (end {@code ip4-lookup}/{@code ip6-lookup}),
 * {@code interface-output} (feature {@code sflow-egress}; end {@code port-output}; interface = transmit ifIndex),
 * {@code error-drop} (feature {@code sflow-drop}; end {@code drop}; interface = receive ifIndex).
 *
 * <p>Enablement is a bit mask per ifIndex in an array the control thread replaces (copy on write) and workers read
 * once per packet; changing it allocates, forwarding does not. Graph indices are resolved when the first worker
 * instantiates the graph; every worker's graph has the same indices (same registration order).
 */
public final class FeatureArc {
    /** Largest ifIndex a mask covers; packets on higher ifIndexes see no features. */
    public static final int MAX_IF_INDEX = 4095;

    private final String name;
    private final String endName;
    private final String[] featureNames;
    private volatile int[] masks = new int[0];
    private volatile int union;
    private int[] featureIndex;
    private int endIndex = -1;

    /**
     * @param name arc name (e.g. {@code "device-input"})
     * @param endName node every packet reaches after the enabled features
     * @param featureNames feature node names in the order packets visit them (at most 31)
     */
    public FeatureArc(String name, String endName, String... featureNames) {
        if (featureNames.length > 31) {
            throw new IllegalArgumentException("arc " + name + ": at most 31 features");
        }
        this.name = name;
        this.endName = endName;
        this.featureNames = featureNames.clone();
    }

    /** @return the arc name. */
    public String name() {
        return name;
    }

    /** @return feature names in arc order. */
    public List<String> features() {
        return List.of(featureNames);
    }

    /**
     * @param feature a feature node name
     * @return its position in the arc
     * @throws IllegalArgumentException if the arc has no such feature
     */
    public int position(String feature) {
        for (int i = 0; i < featureNames.length; i++) {
            if (featureNames[i].equals(feature)) {
                return i;
            }
        }
        throw new IllegalArgumentException("arc " + name + " has no feature " + feature + "; features: "
                + Arrays.toString(featureNames));
    }

    synchronized void resolve(java.util.function.ToIntFunction<String> index) {
        if (featureIndex != null) {
            return;
        }
        int[] f = new int[featureNames.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = index.applyAsInt(featureNames[i]);
        }
        endIndex = index.applyAsInt(endName);
        featureIndex = f;
    }

    /**
     * Enables or disables a feature on one interface (control thread; allocates a new mask array).
     *
     * @param feature feature node name
     * @param ifIndex interface, 1..{@link #MAX_IF_INDEX}
     * @param enable true to enable
     * @throws IllegalArgumentException for an unknown feature or an ifIndex out of range
     */
    public synchronized void enable(String feature, int ifIndex, boolean enable) {
        if (ifIndex < 1 || ifIndex > MAX_IF_INDEX) {
            throw new IllegalArgumentException("arc " + name + ": ifIndex " + ifIndex + " outside 1.." + MAX_IF_INDEX);
        }
        int bit = 1 << position(feature);
        int[] m = Arrays.copyOf(masks, Math.max(masks.length, ifIndex + 1));
        m[ifIndex] = enable ? m[ifIndex] | bit : m[ifIndex] & ~bit;
        int u = 0;
        for (int x : m) {
            u |= x;
        }
        masks = m;
        union = u;
    }

    /**
     * @param feature feature node name
     * @param ifIndex interface
     * @return true when the feature is enabled on the interface
     */
    public boolean enabled(String feature, int ifIndex) {
        int[] m = masks;
        return ifIndex >= 0 && ifIndex < m.length && (m[ifIndex] & (1 << position(feature))) != 0;
    }

    /**
     * Sends a packet into the arc: to the first feature enabled on {@code ifIndex}, or to the end node.
     *
     * @param w the worker
     * @param buffer buffer index
     * @param ifIndex the interface the arc is keyed on
     */
    public void start(Worker w, int buffer, int ifIndex) {
        w.enqueue(target(ifIndex, 0), buffer, 0);
    }

    /**
     * Sends a packet from feature {@code position} to the next feature enabled on {@code ifIndex}, or to the end.
     *
     * @param w the worker
     * @param buffer buffer index
     * @param ifIndex the interface the arc is keyed on
     * @param position the calling feature's {@link #position(String)}
     */
    public void next(Worker w, int buffer, int ifIndex, int position) {
        w.enqueue(target(ifIndex, position + 1), buffer, 0);
    }

    /**
     * @param ifIndex interface
     * @param from first feature position to consider
     * @return graph index of the first enabled feature at or after {@code from}, else of the end node
     */
    public int target(int ifIndex, int from) {
        int[] m = masks;
        int mask = ifIndex >= 0 && ifIndex < m.length ? m[ifIndex] >>> from : 0;
        return mask == 0 ? endIndex : featureIndex[from + Integer.numberOfTrailingZeros(mask)];
    }

    /**
     * The next node shared by every interface from position {@code from} on: when no interface enables a feature at
     * or after {@code from}, every packet goes to the end node, and a feature node can hand its whole vector there
     * without looking at each packet's interface (one volatile read per vector).
     *
     * @param from first feature position to consider
     * @return graph index of the end node when no interface has a feature at or after {@code from}, else −1 (the
     *         caller looks per interface with {@link #target})
     */
    public int commonTarget(int from) {
        return (union >>> from) == 0 ? endIndex : -1;
    }

    /** @return graph index of the end node (after resolution). */
    public int endIndex() {
        return endIndex;
    }
}
