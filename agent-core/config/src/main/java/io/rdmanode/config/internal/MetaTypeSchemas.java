// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/** Reads what the installed bundles declare through the MetaType service (DS {@code @Designate} writes it). */
final class MetaTypeSchemas {

    private MetaTypeSchemas() {
    }

    static ConfigSchema read(BundleContext context, MetaTypeService metaType) {
        Map<String, PidSchema> pids = new HashMap<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getState() == Bundle.UNINSTALLED) {
                continue;
            }
            MetaTypeInformation info;
            try {
                info = metaType.getMetaTypeInformation(bundle);
            } catch (RuntimeException e) {
                continue; // a bundle going away while we look
            }
            if (info == null) {
                continue;
            }
            for (String pid : info.getPids()) {
                add(pids, pid, false, bundle, info);
            }
            for (String pid : info.getFactoryPids()) {
                add(pids, pid, true, bundle, info);
            }
        }
        return new ConfigSchema(Map.copyOf(pids));
    }

    private static void add(Map<String, PidSchema> pids, String pid, boolean factory, Bundle bundle,
                            MetaTypeInformation info) {
        ObjectClassDefinition ocd;
        try {
            ocd = info.getObjectClassDefinition(pid, null);
        } catch (RuntimeException e) {
            return;
        }
        if (ocd == null) {
            return;
        }
        Set<String> required = ids(ocd.getAttributeDefinitions(ObjectClassDefinition.REQUIRED));
        Map<String, AttributeSchema> attributes = new LinkedHashMap<>();
        AttributeDefinition[] all = ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
        for (AttributeDefinition ad : all == null ? new AttributeDefinition[0] : all) {
            // DS marks every annotation member "required"; only one without a default must be in the file.
            boolean mustBeGiven = required.contains(ad.getID()) && ad.getDefaultValue() == null;
            List<String> options = ad.getOptionValues() == null ? List.of() : List.of(ad.getOptionValues());
            attributes.put(ad.getID(), new AttributeSchema(ad.getID(), AttributeType.of(ad.getType()),
                    ad.getCardinality(), mustBeGiven, options, ad::validate));
        }
        pids.put(pid, new PidSchema(pid, factory, bundle.getSymbolicName(), Map.copyOf(attributes)));
    }

    private static Set<String> ids(AttributeDefinition[] definitions) {
        return definitions == null ? Set.of()
                : Set.copyOf(Arrays.stream(definitions).map(AttributeDefinition::getID).toList());
    }
}
