package io.vecflow.dataplane.graph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The node graph definition: nodes registered by name, each with a factory that makes one instance per worker
 * (VPP's {@code VLIB_REGISTER_NODE}). Next nodes are resolved by name when a worker instantiates the graph, so
 * registration order does not matter; a missing next node fails with its name.
 */
public final class Graph {
    private final Map<String, IntFunction<? extends Node>> factories = new LinkedHashMap<>();
    private final List<FeatureArc> arcs = new ArrayList<>();

    /**
     * Registers a node.
     *
     * @param name node name (must equal the name the factory's nodes report)
     * @param factory makes the node for worker {@code i}
     * @return this graph
     * @throws IllegalArgumentException if the name is taken
     */
    public Graph register(String name, IntFunction<? extends Node> factory) {
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("node already registered: " + name);
        }
        return this;
    }

    /**
     * Registers a feature arc; its feature and end node names are resolved when a worker instantiates the graph.
     *
     * @param arc the arc (shared by every worker)
     * @return this graph
     */
    public Graph arc(FeatureArc arc) {
        arcs.add(arc);
        return this;
    }

    /** @return registered node names in registration order. */
    public List<String> nodeNames() {
        return List.copyOf(factories.keySet());
    }

    /**
     * Instantiates every node for one worker and resolves next-node names to indices.
     *
     * @param worker worker index
     * @return nodes indexed by graph index (registration order)
     * @throws IllegalStateException if a node names an unregistered next node or reports the wrong name
     */
    Node[] instantiate(int worker) {
        List<Node> nodes = new ArrayList<>();
        Map<String, Integer> index = new HashMap<>();
        for (var e : factories.entrySet()) {
            Node n = e.getValue().apply(worker);
            if (!n.name().equals(e.getKey())) {
                throw new IllegalStateException("node registered as " + e.getKey() + " calls itself " + n.name());
            }
            index.put(n.name(), nodes.size());
            nodes.add(n);
        }
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            String[] names = n.nextNames();
            int[] next = new int[names.length];
            for (int j = 0; j < names.length; j++) {
                Integer k = index.get(names[j]);
                if (k == null) {
                    throw new IllegalStateException("node " + n.name() + " names unknown next node " + names[j]);
                }
                next[j] = k;
            }
            n.bind(i, next);
        }
        for (FeatureArc arc : arcs) {
            arc.resolve(name -> {
                Integer k = index.get(name);
                if (k == null) {
                    throw new IllegalStateException("arc " + arc.name() + " names unknown node " + name);
                }
                return k;
            });
        }
        return nodes.toArray(Node[]::new);
    }
}
