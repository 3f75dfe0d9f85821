// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.netlink.LinkEvent;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetlink;
import io.rdmanode.netlink.RdmaNetnsMode;
import io.rdmanode.netlink.Uevent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class KernelEventsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "add@/devices/virtual/net/veth0|SUBSYSTEM=net,INTERFACE=veth0|net=[veth0]",
        "add@/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/net/ens1f0v0|SUBSYSTEM=net,INTERFACE=ens1f0v0|pci=[0000:3b:00.2]",
        "remove@/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2|SUBSYSTEM=pci,PCI_SLOT_NAME=0000:3b:00.2|pci=[0000:3b:00.2]",
        "add@/devices/virtual/infiniband/rxe0|SUBSYSTEM=infiniband,NAME=rxe0|rdma=[rxe0]",
        "add@/devices/virtual/infiniband_verbs/uverbs0|SUBSYSTEM=infiniband_verbs|full",
    })
    void uEventsBecomeHints(String header, String env, String expected) {
        StringBuilder msg = new StringBuilder(header).append('\0');
        msg.append("ACTION=").append(header, 0, header.indexOf('@')).append('\0');
        msg.append("DEVPATH=").append(header.substring(header.indexOf('@') + 1)).append('\0');
        for (String kv : env.split(",")) {
            msg.append(kv).append('\0');
        }
        byte[] b = msg.toString().getBytes(StandardCharsets.UTF_8);

        Optional<ScanHints> h = KernelEvents.fromUevent(Uevent.parse(b, b.length));

        assertThat(h).hasValueSatisfying(x -> assertThat(x.toString()).contains(expected));
    }

    @Test
    void ignoresOtherSubsystems() {
        byte[] b = "add@/devices/virtual/block/loop0\0SUBSYSTEM=block\0".getBytes(StandardCharsets.UTF_8);
        assertThat(KernelEvents.fromUevent(Uevent.parse(b, b.length))).isEmpty();
    }

    @Test
    void linkEventsNameTheirNetdev() {
        assertThat(KernelEvents.fromLinks(List.of(new LinkEvent(LinkEvent.Kind.DEL, 7, "eth9"))))
                .hasValueSatisfying(x -> assertThat(x.toString()).contains("net=[eth9]"));
        assertThat(KernelEvents.fromLinks(List.of(new LinkEvent(LinkEvent.Kind.NEW, 7, "")))).isEmpty();
    }

    @Test
    void netnsModeFromRdmaNetlinkAndItsErrors() {
        assertThat(RdmaNetnsModeReader.read(rdma(() -> RdmaNetnsMode.SHARED))).isEqualTo(NetnsMode.of(NetnsMode.Mode.SHARED));
        assertThat(RdmaNetnsModeReader.read(rdma(() -> RdmaNetnsMode.EXCLUSIVE)).mode())
                .isEqualTo(NetnsMode.Mode.EXCLUSIVE);
        assertThat(RdmaNetnsModeReader.read(rdma(() -> {
            throw new NetlinkException("RDMA netlink SYS_GET: EINVAL", NetlinkException.EINVAL);
        })).reason()).hasValueSatisfying(r -> assertThat(r).contains("5.3"));
    }

    private static RdmaNetlink rdma(java.util.function.Supplier<RdmaNetnsMode> mode) {
        return new RdmaNetlink() {
            @Override
            public List<RdmaLink> links() {
                return List.of();
            }

            @Override
            public List<RdmaLink> linksIn(Path netns) {
                return List.of();
            }

            @Override
            public RdmaNetnsMode netnsMode() {
                return mode.get();
            }

            @Override
            public void setNetnsMode(RdmaNetnsMode m) {
            }

            @Override
            public void moveToNetns(String device, Path netns) {
            }

            @Override
            public void returnFromNetns(String device, Path podNetns) {
            }
        };
    }

    @Test
    void liveNetnsModeIsKnownOrExplained() {
        NetnsMode m = RdmaNetnsModeReader.read();
        assertThat(m.mode() != NetnsMode.Mode.UNKNOWN || m.reason().isPresent()).isTrue();
        System.out.println("this host's RDMA netns mode: " + m);
    }
}
