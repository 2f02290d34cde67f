import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppSettings } from '#config';
import { dataSourceOptions, ensureDatabase } from './data-source.js';
import { Sql } from './sql.js';

/** The PostgreSQL connection shared by every feature module; each registers its own entities. */
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
    }),
  ],
  providers: [Sql],
  exports: [TypeOrmModule, Sql],
})
export class DatabaseModule {}
