import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import type { DisplaySizeProvider } from '../catalog/catalog.service.js';
import { EmbedService, type EmbedCatalog } from './embed.service.js';
import { embedRoutes } from './embed.routes.js';
import { siteRoutes } from './site-url.js';

export interface EmbedExports {
  /** oEmbed: which assets may be embedded, their `uri_oembed`, short links and the embed page. */
  embeds: EmbedService;
}

export interface EmbedNeeds {
  /** Which assets exist, and their records (the catalogue). */
  catalog: EmbedCatalog;
  /** Signed display URIs of the assets (media). */
  displaySizes: DisplaySizeProvider;
  /** Seconds left on a signed display URI (media's signer). */
  signer: { secondsUntilExpiry(expires: string): number };
}

/** oEmbed (`{embed_url}/oembed`), the embed page it frames, and the short links (`{short_url}/{id}`). */
export function embedModule(platform: Platform, needs: EmbedNeeds): StockroomModule<EmbedExports> {
  const { config } = platform;
  const embeds = new EmbedService({
    catalog: needs.catalog,
    media: needs.displaySizes,
    sites: { publicUrl: config.publicUrl, embedUrl: config.embedUrl, shortUrl: config.shortUrl },
    secondsValid: (uri) => needs.signer.secondsUntilExpiry(new URL(uri).searchParams.get('expires') ?? ''),
  });
  return {
    name: 'embed',
    exports: { embeds },
    routes: {
      async root(root) {
        await root.register(embedRoutes, {
          embeds,
          embedSite: siteRoutes(config.embedUrl, config.publicUrl),
          shortSite: siteRoutes(config.shortUrl, config.publicUrl),
          publicUrl: config.publicUrl,
        });
      },
    },
  };
}
