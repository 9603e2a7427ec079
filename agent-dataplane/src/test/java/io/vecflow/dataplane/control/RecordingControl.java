package io.vecflow.dataplane.control;

import io.vecflow.dataplane.plugins.lb.Vip;
import io.vecflow.dataplane.plugins.lb.VipKey;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Test double of our own {@link DataplaneControl} interface for the parser/dispatch tests: records each call as text,
 * knows interfaces eth0 and eth1, and tracks how many calls overlap (the server must serialise them).
 */
final class RecordingControl implements DataplaneControl {
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    volatile long callMillis;
    volatile String showText = "sampling-rate 10000\n%odd line\ndone";

    private void rec(String s) {
        int n = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(n, Math::max);
        try {
            if (callMillis > 0) {
                Thread.sleep(callMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
        calls.add(s);
    }

    private static String addrs(List<InetAddress> a) {
        return a.stream().map(InetAddress::getHostAddress).collect(Collectors.joining(","));
    }

    @Override
    public void setSamplingRate(int n) {
        rec("samplingRate " + n);
    }

    @Override
    public void setPollingInterval(int seconds) {
        rec("pollingInterval " + seconds);
    }

    @Override
    public void setHeaderBytes(int bytes) {
        rec("headerBytes " + bytes);
    }

    @Override
    public void setDirection(Direction direction) {
        rec("direction " + direction);
    }

    @Override
    public void setInterfaceSampling(String interfaceName, boolean enable) throws ControlException {
        if (!interfaceName.equals("eth0") && !interfaceName.equals("eth1")) {
            throw new ControlException("no interface \"" + interfaceName + "\" (known: eth0, eth1)");
        }
        rec("interfaceSampling " + interfaceName + " " + enable);
    }

    @Override
    public void setDropMonitoring(boolean enable) {
        rec("dropMonitoring " + enable);
    }

    @Override
    public String showSflow() {
        rec("showSflow");
        return showText;
    }

    @Override
    public String showErrors() {
        rec("showErrors");
        return "errors";
    }

    @Override
    public String showInterfaces() {
        rec("showInterfaces");
        return "interfaces";
    }

    @Override
    public String showRuntime() {
        rec("showRuntime");
        throw new IllegalStateException("runtime view broke");
    }

    @Override
    public void addVip(Vip vip) {
        rec("addVip " + vip.key() + " encap " + vip.encap().word() + " new_len " + vip.newLength());
    }

    @Override
    public void delVip(VipKey key) {
        rec("delVip " + key);
    }

    @Override
    public void addBackends(VipKey vip, List<InetAddress> addresses) {
        rec("addBackends " + vip + " " + addrs(addresses));
    }

    @Override
    public void delBackends(VipKey vip, List<InetAddress> addresses, boolean flush) {
        rec("delBackends " + vip + " " + addrs(addresses) + (flush ? " flush" : ""));
    }

    @Override
    public String showLb() {
        rec("showLb");
        return "lb";
    }

    @Override
    public String showLbFlows() {
        rec("showLbFlows");
        return "flows";
    }

    @Override
    public void setSrlbLoad(double load) {
        rec("setSrlbLoad " + load);
    }

    @Override
    public String showSrlb() {
        rec("showSrlb");
        return showText;
    }

    @Override
    public String showClove() {
        rec("showClove");
        return showText;
    }
}
