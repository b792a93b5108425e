import ArgumentParser

/// The `lightbox` command: a thin layer over the Lightbox library, one subcommand per file.
@main
struct LightboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lightbox",
        abstract: "A photo library: import photos, list them, make thumbnails, serve them on the web.",
        discussion: """
            Every command works on one library folder: --library DIR, else $LIGHTBOX_LIBRARY, \
            else ./Photos.lightbox. With --json, commands print JSON Lines whose fields are the \
            model's (localIdentifier, mediaType, pixelWidth, creationDate, ...).
            """,
        version: "0.1.0",
        subcommands: [
            ImportCommand.self, ListCommand.self, ShowCommand.self, AssetThumbnailCommand.self, ImageDataCommand.self,
            MovieCommand.self,
            FavoriteCommand.self,
            HideCommand.self, EditCommand.self, EditorsCommand.self, RevertCommand.self, DeleteCommand.self,
            RestoreCommand.self,
            TrashCommand.self, AlbumCommand.self, FolderCommand.self, PeopleCommand.self, PlacesCommand.self,
            TextCommand.self, ThingsCommand.self, ClipCommand.self, SearchCommand.self,
            HistoryCommand.self,
            WatchCommand.self,
            ServeCommand.self, MetadataCommand.self, ExportCommand.self, ThumbnailCommand.self, RenderCommand.self,
            CheckCommand.self, CaptureCommand.self, BurstCommand.self, UserCommand.self, TokenCommand.self,
            ShareCommand.self, WorkerCommand.self, JobsCommand.self, MigrateCommand.self,
        ]
    )
}
