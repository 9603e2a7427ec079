package io.vecflow.dataplane.plugins;

import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.sflow.LbCounterSource;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A dataplane plugin (VPP's {@code VLIB_PLUGIN_REGISTER}): found through {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/io.vecflow.dataplane.plugins.DataplanePlugin}), it decides from the dataplane's settings
 * whether it runs, names the features it adds to the arcs, registers its nodes in every worker's graph and enables
 * its features. The dataplane lists no plugin: it creates every plugin in {@link #rank()} order, so node indices do
 * not depend on the order the service loader happens to find them.
 */
public interface DataplanePlugin {
    /** @return registration order: plugins of a lower rank create and register their nodes first */
    int rank();

    /**
     * @param ctx the dataplane being built
     * @return the plugin's part of this dataplane, or null when its settings are absent (the plugin does not run)
     */
    Instance create(Context ctx);

    /** What a plugin sees of the dataplane being built. */
    interface Context {
        /** @return worker threads */
        int workers();

        /** @return the interfaces */
        InterfaceTable interfaces();

        /** @return the forwarding state, swapped at run time */
        AtomicReference<Forwarding> forwarding();

        /**
         * @param type a plugin's settings class
         * @param <T> the settings type
         * @return the settings of that type the dataplane was given, or null
         */
        <T> T settings(Class<T> type);
    }

    /** Where a plugin declares its feature nodes. */
    interface Features {
        /**
         * Adds feature {@code node} to arc {@code arc}; an arc's features run in ascending {@code order} (VPP's
         * {@code runs_before}/{@code runs_after}).
         *
         * @param arc arc name ({@code ip4-unicast}, {@code ip6-unicast}, ...)
         * @param node feature node name
         * @param order position key among the arc's features
         */
        void add(String arc, String node, int order);
    }

    /** A plugin's part of one dataplane. */
    interface Instance {
        /** @return the object the control and metrics code reach the plugin through (e.g. the load balancer) */
        Object component();

        /** Declares the plugin's arc features (before the arcs exist). */
        void features(Features features);

        /**
         * Registers the plugin's nodes in one worker's graph.
         *
         * @param graph the worker's graph
         * @param worker worker index
         * @param arcs the arcs by name
         */
        void register(Graph graph, int worker, Function<String, FeatureArc> arcs);

        /**
         * Called once every worker's graph exists: enables the plugin's features where they apply.
         *
         * @param arcs the arcs by name
         */
        void start(Function<String, FeatureArc> arcs);

        /** @return the plugin's LB counter sources the sFlow main thread reports (default none) */
        default List<LbCounterSource> counterSources() {
            return List.of();
        }
    }
}
