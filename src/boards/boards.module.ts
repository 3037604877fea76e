import type { Platform } from '../platform/platform.js';
import type { StockroomModule } from '../platform/module.js';
import { getOrCreateSetting } from '../platform/db/settings.js';
import { randomSecret } from '../platform/crypto/secrets.js';
import type { DisplaySizeProvider } from '../catalog/catalog.service.js';
import { BoardLinks } from './board-links.js';
import { BoardsRepository } from './boards.repository.js';
import { BoardsService, type BoardCatalog, type BoardPeople, type BoardSends } from './boards.service.js';
import { boardsRoutes, sharedBoardRoutes } from './boards.routes.js';

export interface BoardsExports {
  /** Boards, their assets, comments, editors and links. */
  boards: BoardsService;
}

export interface BoardsNeeds {
  /** Which assets exist (the catalogue). */
  catalog: BoardCatalog;
  /** Signed display URIs of the assets (media). */
  displaySizes: DisplaySizeProvider;
  /** The names shown on comments (oauth's users). */
  people: BoardPeople;
  /** Where a board sent to someone is recorded (asset management's send events). */
  sends: BoardSends;
}

/** Boards and comments: collections of assets a customer keeps, shares with colleagues and shows a client. */
export async function boardsModule(platform: Platform, needs: BoardsNeeds): Promise<StockroomModule<BoardsExports>> {
  const { config, database, changeFeed, clock, log } = platform;
  // Every node derives the same link tokens from a board's nonces with this key, kept apart from the boards.
  const linkKey = await getOrCreateSetting(database.db, 'board_link_secret', () => randomSecret());
  const boards = new BoardsService({
    repository: new BoardsRepository(database.db, database.dialect),
    catalog: needs.catalog,
    displaySizes: needs.displaySizes,
    people: needs.people,
    sends: needs.sends,
    links: new BoardLinks(linkKey, config.publicUrl),
    now: clock,
  });
  // Assets withdrawn from the catalogue, here or by another node or the ingest command, leave every board.
  changeFeed.subscribe((changes) => {
    const withdrawn = changes
      .filter((change) => (change.entity_type === 'image' || change.entity_type === 'video') && change.operation === 'delete')
      .map((change) => change.entity_id);
    if (withdrawn.length === 0) return;
    boards.withdrawAssets(withdrawn).catch((error: unknown) => log.error({ err: error, assets: withdrawn }, 'withdrawing assets from boards failed'));
  });
  return {
    name: 'boards',
    exports: { boards },
    routes: {
      async api(api) {
        await api.register(boardsRoutes, { boards });
      },
      async open(open) {
        await open.register(sharedBoardRoutes, { boards });
      },
    },
  };
}
