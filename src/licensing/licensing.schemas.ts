import { Type, type Static } from '@sinclair/typebox';
import { Choice, CommaList, Flag, IsoDate, PageNumber, PageSize, ProductType, READING, Text } from '../platform/http/parameters.js';
import { ErrorBody, Nullable } from '../platform/http/schema-types.js';
import { EXTENDED_LICENSE_TYPES } from './licensing-policy.js';
import { PRODUCT_TYPES } from '../catalog/product-types.js';
import type { OrderNotes } from './orders.repository.js';

/** Far past any real history; it keeps the row offset a safe integer (a larger page is a 400, not a database error). */
const MAX_PAGE = 100_000;

/*
 * The shapes of the licensing endpoints, in the spec's and the contract's names: products,
 * the customer, downloads and their history, purchases and extended licenses.
 */

const S = Type.String();
const I = Type.Integer();
const B = Type.Boolean();

export const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

// ── parameters ──────────────────────────────────────────────────────────────

/** A product type parameter: one of the product types, in any letter case. */
const ProductTypeParameter = (description: string) => ProductType(PRODUCT_TYPES, description);

/** The order notes of a download's or an extended license's body, as the repository takes them. */
export function orderNotesOf(body: { [K in keyof typeof orderNotes]?: string | null | undefined }): OrderNotes {
  return {
    purchaseOrderNumber: body.purchase_order_number,
    endClient: body.end_client,
    licenseeName: body.licensee_name,
    projectTitle: body.project_title,
    orderedBy: body.ordered_by,
  };
}

export const AssetIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'Asset id' }) });

// ── products and the customer ───────────────────────────────────────────────

export const ProductsQuery = Type.Object(
  { fields: Type.Optional(CommaList(Choice(['download_requirements'], 'A field.'), 'download_requirements adds what a download under each product must carry.')) },
  { additionalProperties: false },
);

export const Product = Type.Object(
  {
    id: I,
    name: S,
    type: Type.String({ description: PRODUCT_TYPES.join(', ') }),
    status: Type.String({ description: 'active, or inactive (suspended or expired)' }),
    credits_remaining: Nullable(I),
    team_credits: Nullable(I),
    download_limit: Nullable(I),
    download_limit_duration: Nullable(Type.String({ description: 'day, month or year; null for a limit that never resets' })),
    downloads_remaining: Nullable(I),
    download_limit_reset_utc_date: Nullable(S),
    expiration_utc_date: Nullable(S),
    agreement_name: Nullable(S),
    imagepack_resolution: Nullable(Type.String({ description: 'the largest size a download may have: x-small, small, medium, large, x-large' })),
    application_website: Nullable(S),
    overage: Type.Object({ limit: Nullable(I), remaining: Nullable(I), count: Nullable(I), overages_reached: Nullable(B) }),
    download_requirements: Type.Optional(
      Type.Object({ is_note_required: B, is_project_code_required: B, project_codes: Type.Array(S) }),
    ),
    ai_gen_requirements: Type.Optional(
      Type.Object(
        {
          is_note_required: B,
          is_project_code_required: B,
          project_codes: Type.Array(S),
          asset_edit_cost: Type.Integer({
            minimum: 0,
            description:
              'Units of the generation allowance an edit of a catalogue asset draws (a request with reference_asset_id, and background generation); ' +
              'every other request draws 1. 0: such edits are free. Not in the contract, which says only that these operations may use a credit.',
          }),
        },
        { description: 'AI generation products (aigen): what a generation request under the product must carry, and what an edit of a catalogue asset costs.' },
      ),
    ),
  },
  { $id: 'Product', description: 'A product the customer holds.' },
);

export const ProductsResult = Type.Object({ products: Type.Array(Product) });

export const CustomerInfo = Type.Object({ first_name: Nullable(S), middle_name: Nullable(S), last_name: Nullable(S) });

// ── downloads ───────────────────────────────────────────────────────────────

const downloadQuery = {
  product_type: Type.Optional(ProductTypeParameter('The product type to download with.')),
  product_id: Type.Optional(Type.Integer({ minimum: 1, description: 'The id of the product to download with (GET /products).' })),
  use_team_credits: Type.Optional(Flag('true: pay with the team’s credits (partner-credit users of a team); default false.')),
};

export const ImageDownloadQuery = Type.Object(
  {
    auto_download: Type.Optional(Flag('true (default): 303 to the file; false: 200 with its uri.')),
    file_type: Type.Optional(Choice(['jpg', 'eps'], 'jpg (default), or eps: the image’s EPS file (download size `vector`).')),
    height: Type.Optional(
      Text('Pixel height of one of the image’s download sizes (image metadata); other heights: 400. Blank: the largest the product allows.', {
        pattern: '^[0-9]{1,10}$',
        expected: 'a pixel height (whole number)',
      }),
    ),
    ...downloadQuery,
  },
  { additionalProperties: false },
);

export const VideoDownloadQuery = Type.Object(
  {
    auto_download: Type.Optional(Flag('true: 307 to the file; false (default): 200 with its uri.')),
    size: Type.Optional(Text('Name of one of the video’s download sizes (video metadata); other names: 400. Blank: the largest.', { maxLength: 100 })),
    ...downloadQuery,
  },
  { additionalProperties: false },
);

const orderNote = (description: string) => Type.Optional(Nullable(Type.String({ maxLength: 200, description })));

/**
 * What a purchase says of its order (GET /orders/{id}); all optional. Purchases of a user naming
 * the same purchase_order_number belong to one order, whose notes the first sets and later ones
 * may fill in but not change (409 OrderNotesConflict); without one, each purchase is an order of its own.
 */
export const orderNotes = {
  purchase_order_number: orderNote('Your purchase order number: purchases naming the same one belong to one order.'),
  end_client: orderNote('Who the licensed work is for.'),
  licensee_name: orderNote('Who holds the license.'),
  project_title: orderNote('The project the assets are for.'),
  ordered_by: orderNote('Who ordered; default: the purchasing user.'),
};

/** PremiumAccessDownloadData and the order's notes; the body may also be absent, empty or the JSON null. */
const DownloadDetails = Type.Object(
  {
    download_notes: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    project_code: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    ...orderNotes,
  },
  { additionalProperties: false },
);

/**
 * `{download_notes, project_code}` or the JSON null, as one schema of type object-or-null
 * rather than a union: a union's error names its first branch ("must be null") instead of the
 * field at fault.
 */
export const DownloadBody = Type.Unsafe<Static<typeof DownloadDetails> | null>({
  ...DownloadDetails,
  type: ['object', 'null'],
  description:
    'Optional: download_notes and project_code (required when the product demands them), and the notes of the order a purchase ' +
    'belongs to (purchase_order_number, end_client, licensee_name, project_title, ordered_by); null or no body means none.',
});

export const DownloadUri = Type.Object({ uri: Type.String({ description: 'Signed URL of the file, valid 24 hours; use it as given.' }) });

export const HistoryQuery = Type.Object(
  {
    date_from: Type.Optional(IsoDate('Downloaded on or after (ISO 8601); default date_to minus 30 days; not after date_to (400).', { time: true })),
    date_to: Type.Optional(IsoDate('Downloaded on or before (ISO 8601); default the earlier of today and date_from plus 30 days.', { time: true })),
    use_time: Type.Optional(Flag('true: the times of date_from and date_to count; default false (whole days).')),
    page: Type.Optional(PageNumber('Page number, from 1.', { maximum: MAX_PAGE })),
    page_size: Type.Optional(PageSize('Results per page; default 30.')),
    pageSize: Type.Optional(PageSize('Same as page_size.', { deprecated: true })),
    product_type: Type.Optional(ProductTypeParameter('Only downloads made with this product type.')),
    company_downloads: Type.Optional(Flag('true: the downloads of every user of the team (403 CompanyDownloadsNotEnabled without a team); default false.')),
  },
  { additionalProperties: false },
);

export const HistoricalDownload = Type.Object(
  {
    date_downloaded: S,
    id: S,
    asset_type: S,
    product_type: S,
    thumb_uri: Nullable(S),
    agreement_name: Nullable(S),
    product_id: I,
    download_details: Type.Object({ download_notes: Nullable(S), project_code: Nullable(S) }),
    download_source: Type.String({ description: 'where the download was made: api (through the API), or the name (host) of the catalogue browser that made it' }),
    user: Type.Object({ username: S, first_name: Nullable(S), middle_name: Nullable(S), last_name: Nullable(S) }),
    size_name: Nullable(S),
    dimensions: Type.Object({ width: Nullable(I), height: Nullable(I), dpi: Nullable(I) }),
    license_model: Nullable(S),
    generated_asset_id: Nullable(S),
  },
  { $id: 'HistoricalDownload' },
);

export const DownloadsResult = Type.Object({ result_count: I, downloads: Type.Array(HistoricalDownload) });

export const AssetHistoryQuery = Type.Object(
  {
    company_downloads: Type.Optional(Flag('true: the downloads of every user of the team (403 CompanyDownloadsNotEnabled without a team); default false.')),
  },
  { additionalProperties: false },
);

export const AssetDownloadHistory = Type.Object({ id: S, downloads: Type.Array(HistoricalDownload) });

// ── purchases ───────────────────────────────────────────────────────────────

export const PurchasesQuery = Type.Object(
  {
    date_from: Type.Optional(IsoDate('Purchased on or after (ISO 8601 date); not after date_to (400).', { time: true })),
    date_to: Type.Optional(IsoDate('Purchased on or before (ISO 8601 date).', { time: true })),
    page: Type.Optional(PageNumber('Page number, from 1 (below 1: 400 PageNumberLessThanOne).', { maximum: MAX_PAGE, belowOneCode: 'PageNumberLessThanOne' })),
    page_size: Type.Optional(PageSize('Results per page; default 75.')),
    company_purchases: Type.Optional(Flag('true: the purchases of every user of the team; default false.')),
  },
  { additionalProperties: false },
);

export const PreviousPurchases = Type.Object({
  result_count: I,
  previous_purchases: Type.Array(
    Type.Object({ date_purchased: S, image_id: S, license_model: Nullable(S), order_id: Nullable(S), thumb_uri: Nullable(S) }),
  ),
});

export const PreviousAssetPurchases = Type.Object({
  result_count: I,
  previous_purchases: Type.Array(
    Type.Object({
      date_purchased: S,
      purchased_by: S,
      asset_id: S,
      asset_type: S,
      license_model: Nullable(S),
      order_id: Nullable(Type.String({ description: 'The order of the purchase (GET /orders/{id}).' })),
      thumb_uri: Nullable(S),
      size_name: Nullable(S),
      file_size_in_bytes: Nullable(S),
      download_uri: Type.String({ description: 'The URI to POST to download it again (free under the same product).' }),
    }),
  ),
});

// ── extended licenses ───────────────────────────────────────────────────────

export const AssetLicensingParams = Type.Object({ assetId: Type.String({ minLength: 1, maxLength: 64 }) });

const INVALID_LICENSES = 'InvalidRequestParameters';

export const AcquireAssetLicensesRequest = Type.Object(
  {
    // The contract's code for a license that is not one, or none: InvalidRequestParameters.
    extended_licenses: Type.Array(Choice(EXTENDED_LICENSE_TYPES, 'An extended license (other letter cases are taken too).', { code: INVALID_LICENSES }), {
      minItems: 1,
      maxItems: 10,
      description: 'The extended licenses to acquire; at least one.',
      [READING]: { code: INVALID_LICENSES },
    }),
    use_team_credits: Type.Optional(Type.Boolean({ default: false })),
    ...orderNotes,
  },
  { additionalProperties: false },
);

export const AssetLicensingResponse = Type.Object({ credits_used: I, acquired_licenses: Type.Array(S) });
