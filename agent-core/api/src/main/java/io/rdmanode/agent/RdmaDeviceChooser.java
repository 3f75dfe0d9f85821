// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Chooses one RDMA device of this host by the device-plugin pools' selectors, for a component that needs one
 * device but must not wire to the device-plugin bundles (the Freeflow router's {@code freeflow.deviceSelectors}).
 * The device-plugin layer offers it: it owns the selector rules and the candidate listing, and this interface
 * lives here, in the package that is never swapped, so that a consumer imports nothing that a hot swap of the
 * layer would refresh. The service comes, goes and is replaced with the layer's bundle: consumers reference it
 * dynamically and ask it only when they (re)start, keeping the device they got while it is away.
 *
 * <p>A configuration names its selectors as properties {@value #PREFIX}{@code <kind>}, kinds {@link #KINDS}, with
 * the pools' values (hex PCI ids, PCI addresses, interface names, {@code pfNames} such as {@code ens1f0#0-3}, link
 * types). The device-plugin bundle's configuration check refuses a bad value under that prefix in any component's
 * configuration, so a consumer's section is checked by the same rules without importing them.
 *
 * @since 1.6
 */
@ProviderType
public interface RdmaDeviceChooser {

    /** The property prefix of selectors in a configuration: {@code deviceSelectors.vendors} and so on. */
    String PREFIX = "deviceSelectors.";

    /** The selector kinds a configuration may name after {@link #PREFIX}, as the pools write them. */
    List<String> KINDS = List.of("vendors", "devices", "drivers", "pciAddresses", "ifNames", "pfNames",
            "rootDevices", "linkTypes");

    /**
     * The name (under {@code /sys/class/infiniband}) of the first RDMA device of this host, by name, that
     * {@code selectors} take as whole-HCA candidates, with AND across kinds and OR within one list, exactly as a
     * pool takes devices.
     *
     * @param selectors kind (one of {@link #KINDS}) to its entries; kinds absent or empty do not restrict
     * @throws SettingException a bad selector, its property {@value #PREFIX}{@code <kind>}
     * @throws IllegalArgumentException when they take no device here, naming every candidate and why not
     */
    String choose(Map<String, List<String>> selectors);
}
