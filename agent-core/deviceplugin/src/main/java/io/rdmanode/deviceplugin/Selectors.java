// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.List;
import java.util.Optional;

/**
 * Which candidates a pool takes, with every selector kind of both peer plugins: AND across kinds, OR within one
 * list; an empty list (or an empty {@code isRdma}) does not restrict. Values are normalised and checked here:
 * PCI ids compare as lower-case hex without {@code 0x}, PCI addresses as {@code dddd:bb:dd.f}, link types are
 * {@code ether} (also {@code eth}, {@code ethernet}) or {@code infiniband} ({@code ib}).
 *
 * <ul>
 * <li>{@code vendors}, {@code devices} (alias {@code deviceIDs}): the PCI function's ids;</li>
 * <li>{@code drivers}: the PCI function's driver (or the RDMA device's, for soft devices);</li>
 * <li>{@code pciAddresses}: the PCI function's address;</li>
 * <li>{@code ifNames}: any netdev of the candidate ({@link CandidateDevice#netdevs()});</li>
 * <li>{@code pfNames}: VFs of a PF named by netdev, with optional VF ranges; a PF candidate matches its own
 *     name when no range is given;</li>
 * <li>{@code rootDevices}: the same with the PF's PCI address;</li>
 * <li>{@code linkTypes}: any port's link layer, or the netdevs' link type when there is no RDMA device here;</li>
 * <li>{@code isRdma}: whether the candidate has an RDMA device ({@link CandidateDevice#isRdma()}).</li>
 * </ul>
 *
 * @throws io.rdmanode.agent.SettingException from the constructor, naming the selector and the bad value, its
 *         property the selector kind ({@code vendors}; {@code deviceIDs} from {@link #of}): a pool bundle places
 *         it in its configuration with {@code within("selectors")}
 * @since 1.0
 */
public record Selectors(List<String> vendors, List<String> devices, List<String> drivers,
                        List<String> pciAddresses, List<String> ifNames, List<PfSelector> pfNames,
                        List<PfSelector> rootDevices, List<String> linkTypes, Optional<Boolean> isRdma) {

    /** Selector kind names, in evaluation order, as written in configuration and in {@link Exclusion#selector()}. */
    public static final List<String> KINDS = List.of("vendors", "devices", "drivers", "pciAddresses", "ifNames",
            "pfNames", "rootDevices", "linkTypes", "isRdma");

    public Selectors {
        vendors = SelectorEngine.hexIds("vendors", vendors);
        devices = SelectorEngine.hexIds("devices", devices);
        drivers = SelectorEngine.plain("drivers", drivers);
        pciAddresses = SelectorEngine.pciAddresses("pciAddresses", pciAddresses);
        ifNames = SelectorEngine.plain("ifNames", ifNames);
        pfNames = List.copyOf(pfNames);
        rootDevices = SelectorEngine.rootDevices(rootDevices);
        linkTypes = SelectorEngine.linkTypes(linkTypes);
        java.util.Objects.requireNonNull(isRdma, "isRdma");
    }

    /** No selector at all. */
    public static final Selectors NONE = new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of(), List.of(), Optional.empty());

    /** The shared-HCA plugin's vocabulary: vendors, deviceIDs, drivers, ifNames, linkTypes. */
    public static Selectors of(List<String> vendors, List<String> deviceIDs, List<String> drivers,
                               List<String> ifNames, List<String> linkTypes) {
        SelectorEngine.hexIds("deviceIDs", deviceIDs);                 // refused under the name this vocabulary uses
        return new Selectors(vendors, deviceIDs, drivers, List.of(), ifNames, List.of(), List.of(), linkTypes,
                Optional.empty());
    }

    /** Parses {@code pfNames}/{@code rootDevices} strings such as {@code ens1f0#0-3}. */
    public static List<PfSelector> pfSelectors(String kind, List<String> entries) {
        return SelectorEngine.pfSelectors(kind, entries);
    }

    public boolean isEmpty() {
        return vendors.isEmpty() && devices.isEmpty() && drivers.isEmpty() && pciAddresses.isEmpty()
                && ifNames.isEmpty() && pfNames.isEmpty() && rootDevices.isEmpty() && linkTypes.isEmpty()
                && isRdma.isEmpty();
    }

    /** Why {@code candidate} is not taken, naming the first failing selector; empty when it is taken. */
    public Optional<Exclusion> exclusion(CandidateDevice candidate) {
        return SelectorEngine.exclusion(this, candidate);
    }

    /** Applies the selectors to every candidate. */
    public Selection select(List<CandidateDevice> candidates) {
        return SelectorEngine.select(this, candidates);
    }
}
