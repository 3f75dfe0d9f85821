// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.internal.ScanHints;
import java.nio.charset.StandardCharsets;
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

        Optional<ScanHints> h = KernelEvents.fromUevent(b, b.length);

        assertThat(h).hasValueSatisfying(x -> assertThat(x.toString()).contains(expected));
    }

    @Test
    void ignoresOtherSubsystems() {
        byte[] b = "add@/devices/virtual/block/loop0\0SUBSYSTEM=block\0".getBytes(StandardCharsets.UTF_8);
        assertThat(KernelEvents.fromUevent(b, b.length)).isEmpty();
    }

    @Test
    void readsNetnsModeReplyAndErrors() {
        byte[] shared = new byte[24];
        java.nio.ByteBuffer.wrap(shared).order(java.nio.ByteOrder.nativeOrder()).putInt(24).putShort((short) 5126)
                .putShort((short) 0).putInt(1).putInt(0).putShort((short) 5).putShort((short) 66).put((byte) 1);
        assertThat(RdmaNetnsModeReader.parse(shared, 24)).isEqualTo(NetnsMode.of(NetnsMode.Mode.SHARED));
        shared[20] = 0;
        assertThat(RdmaNetnsModeReader.parse(shared, 24).mode()).isEqualTo(NetnsMode.Mode.EXCLUSIVE);
        byte[] err = new byte[36];
        java.nio.ByteBuffer.wrap(err).order(java.nio.ByteOrder.nativeOrder()).putInt(36).putShort((short) 2)
                .putShort((short) 0).putInt(1).putInt(0).putInt(-22);
        assertThat(RdmaNetnsModeReader.parse(err, 36).reason()).hasValueSatisfying(r -> assertThat(r).contains("5.3"));
    }

    @Test
    void liveNetnsModeIsKnownOrExplained() {
        NetnsMode m = RdmaNetnsModeReader.read();
        assertThat(m.mode() != NetnsMode.Mode.UNKNOWN || m.reason().isPresent()).isTrue();
        System.out.println("this host's RDMA netns mode: " + m);
    }
}
