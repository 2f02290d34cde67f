import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppSettings } from '#config';
import { dataSourceOf, dataSourceOptions, ensureDatabase } from './data-source.js';
import { ReadReplicas } from './replicas/read-replicas.js';
import { WritePositions } from './replicas/write-positions.js';
import { OtherModeRepository } from './other-mode.repository.js';
import { Sql } from './sql.js';

/**
 * The PostgreSQL connection shared by every feature module; each registers
 * its own entities. The read replicas (DATABASE_REPLICA_URLS) are plain pg
 * pools next to it, reached only through `Sql.reader` (docs/scaling-postgres.md).
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppSettings],
      useFactory: async (settings: AppSettings) => {
        await ensureDatabase(settings.databaseUrl);
        return {
          ...dataSourceOptions({ url: settings.databaseUrl, poolMax: settings.databasePoolMax }),
          // Each feature lib registers the tables it owns (TypeOrmModule.forFeature in its module).
          autoLoadEntities: true,
        };
      },
      dataSourceFactory: async (options) => dataSourceOf(options!).initialize(),
    }),
  ],
  providers: [Sql, ReadReplicas, WritePositions, OtherModeRepository],
  exports: [TypeOrmModule, Sql, WritePositions, OtherModeRepository],
})
export class DatabaseModule {}
