// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetworkNamespaces;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.osgi.service.component.annotations.Component;

/** The native implementations as services, so components (CNI) take them by reference and tests swap fakes in. */
@Component(service = {RdmaNetlink.class, NetworkNamespaces.class})
public final class NetlinkComponent implements RdmaNetlink, NetworkNamespaces {

    private final RdmaNetlink rdma = RdmaNetlinkClient.NATIVE;
    private final NetworkNamespaces ns = NativeNamespaces.INSTANCE;

    @Override
    public List<RdmaLink> links() {
        return rdma.links();
    }

    @Override
    public List<RdmaLink> linksIn(Path netns) {
        return rdma.linksIn(netns);
    }

    @Override
    public RdmaNetnsMode netnsMode() {
        return rdma.netnsMode();
    }

    @Override
    public void setNetnsMode(RdmaNetnsMode mode) {
        rdma.setNetnsMode(mode);
    }

    @Override
    public void moveToNetns(String device, Path netns) {
        rdma.moveToNetns(device, netns);
    }

    @Override
    public void returnFromNetns(String device, Path podNetns) {
        rdma.returnFromNetns(device, podNetns);
    }

    @Override
    public <T> T callIn(Path netns, Callable<T> work) throws Exception {
        return ns.callIn(netns, work);
    }

    @Override
    public <T> T callInWithSysfs(Path netns, Callable<T> work) throws Exception {
        return ns.callInWithSysfs(netns, work);
    }

    @Override
    public boolean exists(Path netns) {
        return ns.exists(netns);
    }
}
