import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Heatmaps and temporal analysis of dowsing readings.
 *
 * `dowsing_reading_tiles` counts a tenant's readings (and sums their
 * confidences) per tile of a global grid at levels 4, 6, …, 18 — tiles of
 * 180°/2^level, row floor((latitude + 90)/size), column
 * floor((longitude + 180)/size), exactly as libs/dowsing/src/heatmap-grid.ts
 * computes them — so a heatmap over a million readings sums a few thousand
 * tiles instead of aggregating every reading (measured: 400 ms and more for a
 * million readings by GROUP BY over the covering index; the target is p99
 * < 200 ms). Triggers keep it in the statement that inserts or deletes
 * readings, so it is exact at every commit whoever writes the readings (the
 * service, the benchmark's reference server, a seed script): increments are
 * upserted in key order, so two transactions lock shared tiles in the same
 * order and cannot deadlock; a tile whose count drops to 0 is deleted.
 * Readings are never updated; TRUNCATE empties the tiles too.
 *
 * A heatmap reads the tiles of a wide rectangle by the primary key (level,
 * row, column) and those of a tall one (the frames along the box's west and
 * east edges) by the column index; the readings' longitude index finds its
 * west and east edge strips (narrower than a tile of level 18, ≈ 76 m) as
 * the latitude index finds the north and south ones. The question index serves temporal
 * analysis by question (exact, case-insensitive) over completed queries.
 */
export class DowsingHeatmapTiles1764082800000 implements MigrationInterface {
  name = 'DowsingHeatmapTiles1764082800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "dowsing_reading_tiles" ("organization_id" uuid NOT NULL, "mode" text NOT NULL, "level" smallint NOT NULL, "tile_row" integer NOT NULL, "tile_column" integer NOT NULL, "readings" bigint NOT NULL, "confidence_sum" double precision NOT NULL, CONSTRAINT "PK_dowsing_reading_tiles" PRIMARY KEY ("organization_id", "mode", "level", "tile_row", "tile_column"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_reading_tiles_column_idx" ON "dowsing_reading_tiles" ("organization_id", "mode", "level", "tile_column", "tile_row")`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_readings_tenant_longitude_idx" ON "dowsing_readings" ("organization_id", "mode", "longitude", "latitude") INCLUDE ("confidence")`,
    );
    await queryRunner.query(
      `CREATE INDEX "dowsing_queries_tenant_question_idx" ON "dowsing_queries" ("organization_id", "mode", lower("question"), "created_at") WHERE status = 'completed'`,
    );
    // A reading's tile at each stored level (inlined by the planner where it is used).
    await queryRunner.query(`
      CREATE FUNCTION dowsing_reading_tile_keys(latitude float8, longitude float8)
      RETURNS TABLE (level smallint, tile_row integer, tile_column integer)
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT l::smallint,
               floor((latitude + 90) / (180.0::float8 / (1 << l)))::integer,
               floor((longitude + 180) / (180.0::float8 / (1 << l)))::integer
          FROM generate_series(4, 18, 2) AS l
      $$`);
    // Transition tables are visible to the trigger function's own statements only, hence two copies.
    await queryRunner.query(`
      CREATE FUNCTION dowsing_reading_tiles_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO dowsing_reading_tiles AS t
                 (organization_id, mode, level, tile_row, tile_column, readings, confidence_sum)
          SELECT r.organization_id, r.mode, k.level, k.tile_row, k.tile_column, count(*), sum(r.confidence)
            FROM added r CROSS JOIN LATERAL dowsing_reading_tile_keys(r.latitude, r.longitude) k
           GROUP BY 1, 2, 3, 4, 5
           ORDER BY 1, 2, 3, 4, 5
          ON CONFLICT (organization_id, mode, level, tile_row, tile_column) DO UPDATE
             SET readings = t.readings + EXCLUDED.readings,
                 confidence_sum = t.confidence_sum + EXCLUDED.confidence_sum;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO dowsing_reading_tiles AS t
                 (organization_id, mode, level, tile_row, tile_column, readings, confidence_sum)
          SELECT r.organization_id, r.mode, k.level, k.tile_row, k.tile_column, -count(*), -sum(r.confidence)
            FROM removed r CROSS JOIN LATERAL dowsing_reading_tile_keys(r.latitude, r.longitude) k
           GROUP BY 1, 2, 3, 4, 5
           ORDER BY 1, 2, 3, 4, 5
          ON CONFLICT (organization_id, mode, level, tile_row, tile_column) DO UPDATE
             SET readings = t.readings + EXCLUDED.readings,
                 confidence_sum = t.confidence_sum + EXCLUDED.confidence_sum;
          DELETE FROM dowsing_reading_tiles t
           USING (SELECT DISTINCT r.organization_id, r.mode, k.level, k.tile_row, k.tile_column
                    FROM removed r CROSS JOIN LATERAL dowsing_reading_tile_keys(r.latitude, r.longitude) k) gone
           WHERE t.organization_id = gone.organization_id AND t.mode = gone.mode
             AND t.level = gone.level AND t.tile_row = gone.tile_row
             AND t.tile_column = gone.tile_column AND t.readings <= 0;
        ELSE
          TRUNCATE dowsing_reading_tiles;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER dowsing_reading_tiles_added AFTER INSERT ON dowsing_readings REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dowsing_reading_tiles_track()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER dowsing_reading_tiles_removed AFTER DELETE ON dowsing_readings REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION dowsing_reading_tiles_track()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER dowsing_reading_tiles_truncated AFTER TRUNCATE ON dowsing_readings FOR EACH STATEMENT EXECUTE FUNCTION dowsing_reading_tiles_track()`,
    );
    // The readings stored before this migration.
    await queryRunner.query(`
      INSERT INTO dowsing_reading_tiles
             (organization_id, mode, level, tile_row, tile_column, readings, confidence_sum)
      SELECT r.organization_id, r.mode, k.level, k.tile_row, k.tile_column, count(*), sum(r.confidence)
        FROM dowsing_readings r CROSS JOIN LATERAL dowsing_reading_tile_keys(r.latitude, r.longitude) k
       GROUP BY 1, 2, 3, 4, 5`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER dowsing_reading_tiles_truncated ON dowsing_readings`);
    await queryRunner.query(`DROP TRIGGER dowsing_reading_tiles_removed ON dowsing_readings`);
    await queryRunner.query(`DROP TRIGGER dowsing_reading_tiles_added ON dowsing_readings`);
    await queryRunner.query(`DROP FUNCTION dowsing_reading_tiles_track()`);
    await queryRunner.query(`DROP FUNCTION dowsing_reading_tile_keys(float8, float8)`);
    await queryRunner.query(`DROP INDEX "dowsing_queries_tenant_question_idx"`);
    await queryRunner.query(`DROP INDEX "dowsing_readings_tenant_longitude_idx"`);
    await queryRunner.query(`DROP TABLE "dowsing_reading_tiles"`);
  }
}
