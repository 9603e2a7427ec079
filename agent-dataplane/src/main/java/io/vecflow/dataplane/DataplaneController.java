package io.vecflow.dataplane;

import io.vecflow.dataplane.control.ControlException;
import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Vip;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import java.net.InetAddress;
import java.util.List;

/**
 * The {@link DataplaneControl} of a running {@link Dataplane}: each command calls the dataplane's run-time setter
 * and turns a refused value ({@link IllegalArgumentException}, whose message names the value and the allowed range)
 * into a {@link ControlException} the control socket reports with status 1. Load-balancer commands go to the
 * dataplane's {@link LoadBalancer} and answer that no load balancer is configured when the configuration has no
 * {@code lb:} section.
 */
public final class DataplaneController implements DataplaneControl {
    /** Most connection-table entries {@code show lb flows} lists. */
    public static final int SHOW_FLOWS_LIMIT = 1000;
    private final Dataplane dp;

    /** @param dp the dataplane to control */
    public DataplaneController(Dataplane dp) {
        this.dp = dp;
    }

    private interface Action {
        void run();
    }

    private static void apply(Action a) throws ControlException {
        try {
            a.run();
        } catch (IllegalArgumentException e) {
            throw new ControlException(e.getMessage());
        }
    }

    @Override
    public void setSamplingRate(int n) throws ControlException {
        apply(() -> dp.setSamplingRate(n));
    }

    @Override
    public void setPollingInterval(int seconds) throws ControlException {
        apply(() -> dp.setPollingInterval(seconds));
    }

    @Override
    public void setHeaderBytes(int bytes) throws ControlException {
        apply(() -> dp.setHeaderBytes(bytes));
    }

    @Override
    public void setDirection(Direction direction) throws ControlException {
        apply(() -> dp.setDirection(direction));
    }

    @Override
    public void setInterfaceSampling(String interfaceName, boolean enable) throws ControlException {
        apply(() -> dp.enableSflow(interfaceName, enable));
    }

    @Override
    public void setDropMonitoring(boolean enable) throws ControlException {
        apply(() -> dp.setDropMonitoring(enable));
    }

    @Override
    public String showSflow() {
        return dp.showSflow();
    }

    @Override
    public String showErrors() {
        return dp.showErrors();
    }

    @Override
    public String showInterfaces() {
        return dp.showInterfaces();
    }

    @Override
    public String showRuntime() {
        return dp.showRuntime();
    }

    private static ControlException noLb() {
        return new ControlException("no load balancer in this dataplane (configure lb: in the dataplane config)");
    }

    private LoadBalancer lb() throws ControlException {
        LoadBalancer lb = dp.plugin(LoadBalancer.class);
        if (lb == null) {
            throw noLb();
        }
        return lb;
    }

    @Override
    public void addVip(Vip vip) throws ControlException {
        LoadBalancer lb = lb();
        apply(() -> lb.addVip(vip.key(), vip.encap(), vip.newLength()));
    }

    @Override
    public void delVip(VipKey key) throws ControlException {
        LoadBalancer lb = lb();
        apply(() -> lb.delVip(key));
    }

    @Override
    public void addBackends(VipKey vip, List<InetAddress> addresses) throws ControlException {
        LoadBalancer lb = lb();
        apply(() -> lb.addBackends(vip, addresses));
    }

    @Override
    public void delBackends(VipKey vip, List<InetAddress> addresses, boolean flush) throws ControlException {
        LoadBalancer lb = lb();
        apply(() -> lb.delBackends(vip, addresses, flush));
    }

    private SrlbAgent agent() throws ControlException {
        SrlbAgent a = dp.plugin(SrlbAgent.class);
        if (a == null) {
            throw new ControlException("no SRLB server agent in this dataplane (configure srlb-agent: in the "
                    + "dataplane config)");
        }
        return a;
    }

    @Override
    public void setSrlbLoad(double load) throws ControlException {
        SrlbAgent a = agent();
        apply(() -> a.setLoad(load));
    }

    @Override
    public String showClove() throws ControlException {
        Clove c = dp.plugin(Clove.class);
        if (c == null) {
            throw new ControlException("no CLOVE vSwitch in this dataplane (configure clove: in the dataplane config)");
        }
        return c.show();
    }

    @Override
    public String showSrlb() throws ControlException {
        return agent().show();
    }

    @Override
    public String showLb() throws ControlException {
        return lb().show();
    }

    @Override
    public String showLbFlows() throws ControlException {
        return lb().showFlows(SHOW_FLOWS_LIMIT);
    }
}
