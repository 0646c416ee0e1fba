/** The contract's default scopes of the asset-management uploader (Bynder's scope names). */
export const DEFAULT_DAM_SCOPES = 'offline,asset:read,asset:write,collection:read,collection:write,meta.assetbank:read,meta.assetbank:write';

/** What the custom parameters say about the asset to create. */
export interface AssetFields {
  name: string;
  /** Save as a new version of this asset instead of a new asset. */
  mediaId?: string;
  /** Comma-separated tags. */
  tags?: string;
  /** Brand of a new asset; when absent, the account's first brand. */
  brandId?: string;
  /** Metaproperty id → option id(s). */
  metaproperties: Record<string, string>;
  /** Listed properties without both a key and a value parameter. */
  problems: string[];
}

/**
 * Reads the `dam_*` custom parameters: `dam_asset_name` (default `pressroom-<ticket>`),
 * `dam_media_id`, `dam_tags`, `dam_brand_id` (pressroom), and for each name in
 * `dam_meta_props` the pair `dam_meta_key_<name>` (metaproperty id) / `dam_meta_val_<name>`
 * (option id).
 */
export function assetFields(custom: Readonly<Record<string, string>>, ticket: string): AssetFields {
  const fields: AssetFields = { name: custom.dam_asset_name || `pressroom-${ticket}`, metaproperties: {}, problems: [] };
  if (custom.dam_media_id) fields.mediaId = custom.dam_media_id;
  if (custom.dam_tags) fields.tags = custom.dam_tags;
  if (custom.dam_brand_id) fields.brandId = custom.dam_brand_id;
  for (const prop of (custom.dam_meta_props ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const key = custom[`dam_meta_key_${prop}`];
    const value = custom[`dam_meta_val_${prop}`];
    if (key && value) fields.metaproperties[key] = value;
    else fields.problems.push(`dam_meta_props lists ${prop} but dam_meta_key_${prop} and dam_meta_val_${prop} are not both set`);
  }
  return fields;
}

/** The form of Bynder's "save as a new asset" call; a new version of an asset takes none. */
export function saveForm(fields: AssetFields, brandId: string | undefined): URLSearchParams {
  const form = new URLSearchParams();
  if (fields.mediaId) return form;
  form.set('name', fields.name);
  if (brandId) form.set('brandId', brandId);
  if (fields.tags) form.set('tags', fields.tags);
  for (const [key, value] of Object.entries(fields.metaproperties)) form.set(`metaproperty.${key}`, value);
  return form;
}
